/**
 * The ports of a box from its `--port-base` P: the control plane's seven (API server, MCS TLS and
 * plain, dashboard, controller, operator and MCS metrics), then one daemon metrics port per node,
 * and the list of them all that a Prometheus outside the box scrapes (`DIR/metrics-targets.json`).
 */
import type { NodeSpec } from './cluster-nodes.js';

export const DefaultPortBase = 26443;

/** How many ports the control plane takes from the base (`ClusterPorts`); the daemons' come after. */
export const ControlPlanePortCount = 7;

const HighestPort = 65_535;

/**
 * Why a box of `nodes` nodes cannot have its ports from `base` (undefined when it can): every
 * port, the control plane's and one per node, must be a TCP port.
 */
export function portRangeProblem(base: number, nodes: number): string | undefined {
  const last = base + ControlPlanePortCount + nodes - 1;
  if (Number.isInteger(base) && base >= 1 && last <= HighestPort) return undefined;
  const highest = HighestPort - ControlPlanePortCount - nodes + 1;
  return `--port-base ${base}: a box of ${nodes} node${nodes === 1 ? '' : 's'} uses ${ControlPlanePortCount + nodes} ports from its base (${ControlPlanePortCount} for the control plane, 1 per node's daemon metrics), so the base must be from 1 to ${highest}`;
}

/** The cluster's metrics endpoints as a Prometheus file_sd list, in the data folder. */
export const MetricsTargetsFile = 'metrics-targets.json';

/** Ports from the base: API server, MCS (TLS, plain), dashboard, metrics of the control plane. */
export interface ClusterPorts {
  readonly apiserver: number;
  readonly mcsSecure: number;
  readonly mcsInsecure: number;
  readonly dashboard: number;
  readonly controllerMetrics: number;
  readonly operatorMetrics: number;
  readonly mcsMetrics: number;
}

/** The box's ports from `base`. */
export function clusterPorts(base: number): ClusterPorts {
  return {
    apiserver: base,
    mcsSecure: base + 1,
    mcsInsecure: base + 2,
    dashboard: base + 3,
    controllerMetrics: base + 4,
    operatorMetrics: base + 5,
    mcsMetrics: base + 6,
  };
}

/**
 * Each node's daemon serves its metrics on its own port, after the control plane's: the base + 7
 * + the node's place among the nodes (masters first), so a resumed cluster keeps them.
 */
export function daemonMetricsPort(
  ports: ClusterPorts,
  nodes: readonly NodeSpec[],
  name: string,
): number {
  return ports.apiserver + ControlPlanePortCount + nodes.findIndex((n) => n.name === name);
}

/**
 * Every /metrics endpoint of the cluster, as a Prometheus file_sd target list (`DIR/metrics-targets.json`):
 * the one place a Prometheus outside the box scrapes from.
 */
export function metricsTargets(
  ports: ClusterPorts,
  nodes: readonly NodeSpec[],
): { targets: string[]; labels: Record<string, string> }[] {
  const at = (port: number) => [`127.0.0.1:${port}`];
  return [
    { targets: at(ports.controllerMetrics), labels: { job: 'machine-config-controller' } },
    { targets: at(ports.operatorMetrics), labels: { job: 'machine-config-operator' } },
    { targets: at(ports.mcsMetrics), labels: { job: 'machine-config-server' } },
    { targets: at(ports.dashboard), labels: { job: 'mco-dashboard' } },
    ...nodes.map((n) => ({
      targets: at(daemonMetricsPort(ports, nodes, n.name)),
      labels: { job: 'machine-config-daemon', node: n.name },
    })),
  ];
}

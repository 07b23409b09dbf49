/**
 * The default daemon command line of a simulated node: `mco daemon` as upstream's DaemonSet runs
 * it on a real node. `mco start` and `mco node create` both build it here, so the box's nodes and
 * hand-made ones run the same daemon. Placeholders are those of `expandCommand`.
 */
import { KubeletKubeconfigPath } from './kubelet-credentials.js';

export interface DaemonCommandLineOptions {
  /** How to run `mco` (the Node binary and bin/mco.js): this layer reads no process globals. */
  readonly mco: readonly string[];
  /**
   * The kubeconfig the daemon reads the cluster with, e.g. the `machine-config-daemon`
   * ServiceAccount's; it then writes its Node and events with the kubelet's kubeconfig on the
   * node, so the Node authorizer and NodeRestriction decide those. Without one the node's own
   * identity does both, which RBAC from deploy/ does not let read MachineConfigs or pools.
   */
  readonly daemonKubeconfig?: string;
  /** Where the daemon serves its metrics on 127.0.0.1; none: it serves none. */
  readonly metricsPort?: number;
}

export function daemonCommandLine(o: DaemonCommandLineOptions): string[] {
  const credentials =
    o.daemonKubeconfig === undefined
      ? ['--kubeconfig', '{kubeconfig}']
      : ['--kubeconfig', o.daemonKubeconfig, '--node-kubeconfig', KubeletKubeconfigPath];
  return [
    ...o.mco,
    'daemon',
    '--node',
    '{name}',
    '--root',
    '{root}',
    ...credentials,
    '--host',
    'ostree',
    ...(o.metricsPort === undefined ? [] : ['--metrics-port', String(o.metricsPort)]),
    '--kubelet-healthz-endpoint',
    '{kubelet-healthz}',
  ];
}

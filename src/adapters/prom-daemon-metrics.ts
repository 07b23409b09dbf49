/**
 * DaemonMetrics on prom-client, registered in the Registry passed in, with upstream's names,
 * types and labels (src/ports/daemon-metrics.ts).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { DaemonMetricNames, type DaemonMetrics } from '../ports/daemon-metrics.js';

/** `mcd_host_os_and_version`'s labels. */
interface HostOsLabels {
  readonly os: string;
  readonly version: string;
}

/** `mcd_host_os_and_version`'s labels from the node's os-release: ID upper-cased, VERSION_ID. */
export function hostOsLabels(osRelease: string | undefined): HostOsLabels {
  if (osRelease === undefined) return { os: 'unsupported', version: '' };
  const field = (key: string): string => {
    const m = new RegExp(`^${key}=(.*)$`, 'm').exec(osRelease);
    return (m?.[1] ?? '').trim().replace(/^(["'])(.*)\1$/, '$2');
  };
  const id = field('ID');
  return id === ''
    ? { os: 'unsupported', version: '' }
    : { os: id.toUpperCase(), version: field('VERSION_ID') };
}

/**
 * The daemon's metrics on prom-client with upstream's names and types; `osRelease` (the node's
 * os-release text) labels mcd_host_os_and_version.
 */
export function promDaemonMetrics(registry: Registry, osRelease?: string): DaemonMetrics {
  const n = DaemonMetricNames;
  const state = new Gauge({ ...n.state, labelNames: ['state', 'reason'], registers: [registry] });
  const update = new Gauge({
    ...n.updateState,
    labelNames: ['config', 'err'],
    registers: [registry],
  });
  const drift = new Gauge({ ...n.configDrift, registers: [registry] });
  const reboots = new Counter({ ...n.rebootsFailed, registers: [registry] });
  const pivots = new Gauge({ ...n.pivotErrors, registers: [registry] });
  const kubelet = new Gauge({ ...n.kubeletState, registers: [registry] });
  new Gauge({ ...n.hostOs, labelNames: ['os', 'version'], registers: [registry] }).set(
    hostOsLabels(osRelease),
    1,
  );
  update.set({ config: '', err: '' }, 0);
  return {
    setState(s, reason) {
      state.reset();
      state.set({ state: s, reason: reason.slice(0, 1024) }, 1);
    },
    setUpdateState(config, error) {
      update.reset();
      update.set({ config, err: error.slice(0, 1024) }, error === '' ? 1 : 0);
    },
    configDrift(atMs) {
      drift.set(atMs / 1000);
    },
    rebootFailed() {
      reboots.inc();
    },
    pivotError() {
      pivots.inc();
    },
    pivotSucceeded() {
      pivots.set(0);
    },
    setKubeletState(failures) {
      kubelet.set(failures);
    },
  };
}

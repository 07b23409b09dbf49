/**
 * McoMetrics on prom-client, registered in the Registry passed in, with upstream's names, help
 * texts and labels (src/ports/mco-metrics.ts).
 */
import { Gauge, type Registry } from 'prom-client';
import { McoMetricNames, type McoMetrics, type PoolMachineCounts } from '../ports/mco-metrics.js';

/**
 * The controller's metrics as prom-client gauges in `registry`. As upstream's registration, the
 * per-pool and per-node gauges that may otherwise stay empty start with an `initialize` series at
 * 0, so dashboards and alerts see the metric before the first value.
 */
export function promMcoMetrics(registry: Registry): McoMetrics {
  const gauge = (m: { name: string; help: string }, ...labelNames: string[]): Gauge =>
    new Gauge({ name: m.name, help: m.help, labelNames, registers: [registry] });
  const machine = gauge(McoMetricNames.machineCount, 'pool');
  const updated = gauge(McoMetricNames.updatedMachineCount, 'pool');
  const degraded = gauge(McoMetricNames.degradedMachineCount, 'pool');
  const unavailable = gauge(McoMetricNames.unavailableMachineCount, 'pool');
  const drainErr = gauge(McoMetricNames.drainErr, 'node');
  const osImageUrlOverride = gauge(McoMetricNames.osImageUrlOverride, 'pool');
  const poolAlert = gauge(McoMetricNames.poolAlert, 'node');
  const state = gauge(McoMetricNames.state, 'node', 'pool', 'state', 'reason');
  const sub = gauge(McoMetricNames.subControllerState, 'subcontroller', 'state', 'object');
  osImageUrlOverride.set({ pool: 'initialize' }, 0);
  drainErr.set({ node: 'initialize' }, 0);
  poolAlert.set({ node: 'initialize' }, 0);
  sub.set({ subcontroller: 'initialize', state: 'initialize', object: 'initialize' }, 0);
  return {
    setPoolCounts: (pool: string, c: PoolMachineCounts) => {
      machine.set({ pool }, c.machineCount);
      updated.set({ pool }, c.updatedMachineCount);
      degraded.set({ pool }, c.degradedMachineCount);
      unavailable.set({ pool }, c.unavailableMachineCount);
    },
    setDrainError: (node) => {
      drainErr.set({ node }, 1);
    },
    clearDrainError: (node) => {
      drainErr.remove({ node });
    },
    setOsImageUrlOverride: (pool, overridden) => {
      osImageUrlOverride.set({ pool }, overridden ? 1 : 0);
    },
    setPoolAlert: (node, alert) => {
      poolAlert.set({ node }, alert ? 1 : 0);
    },
    setPoolState: (node, pool, s, reason) => {
      state.setToCurrentTime({ node, pool, state: s, reason });
    },
    subControllerSynced: (subcontroller, s, object) => {
      sub.setToCurrentTime({ subcontroller, state: s, object });
    },
  };
}

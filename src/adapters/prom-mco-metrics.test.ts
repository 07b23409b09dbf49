import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { promMcoMetrics } from './prom-mco-metrics.js';

describe('promMcoMetrics', () => {
  it('exposes upstream metric names with pool and node labels', async () => {
    const registry = new Registry();
    const m = promMcoMetrics(registry);
    m.setPoolCounts('worker', {
      machineCount: 3,
      updatedMachineCount: 2,
      degradedMachineCount: 0,
      unavailableMachineCount: 1,
    });
    m.setDrainError('n1');
    m.setDrainError('n2');
    m.clearDrainError('n2');
    m.setOsImageUrlOverride('worker', true);
    m.setPoolAlert('m0', true);
    m.setPoolState('w0', 'worker', 'Updated', '');
    m.subControllerSynced('machine-config-controller-drain', 'drain', 'w0');
    const text = await registry.metrics();
    for (const line of [
      'mco_machine_count{pool="worker"} 3',
      'mco_updated_machine_count{pool="worker"} 2',
      'mco_degraded_machine_count{pool="worker"} 0',
      'mco_unavailable_machine_count{pool="worker"} 1',
      'mcc_drain_err{node="n1"} 1',
      '# HELP mcc_drain_err logs failed drain',
      '# HELP mco_machine_count total number of machines in a specified pool',
      'os_image_url_override{pool="initialize"} 0',
      'os_image_url_override{pool="worker"} 1',
      'mcc_drain_err{node="initialize"} 0',
      'mcc_pool_alert{node="initialize"} 0',
      'mcc_pool_alert{node="m0"} 1',
      '# HELP mco_state state of a specified pool',
      'mcc_sub_controller_state{subcontroller="initialize",state="initialize",object="initialize"} 0',
      'mcc_sub_controller_state{subcontroller="machine-config-controller-drain",state="drain",object="w0"}',
    ])
      expect(text).toContain(line);
    expect(text).not.toContain('node="n2"');
    const state = /^mco_state\{node="w0",pool="worker",state="Updated",reason=""\} ([\d.]+)$/m.exec(
      text,
    );
    expect(Math.abs(Number(state?.[1]) - Date.now() / 1000)).toBeLessThan(60);
  });
});

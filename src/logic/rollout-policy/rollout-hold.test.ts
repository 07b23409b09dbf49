import { describe, expect, it } from 'vitest';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutHeldCondition } from '../../api/machineconfiguration/v1/rollout-policy.js';
import { HoldReason } from './rollout-decision.js';
import { holdLift, holdText, poolHold } from './rollout-hold.js';

function held(status: string, reason: string, message: string): MachineConfigPool {
  return {
    metadata: { name: 'worker' },
    spec: {},
    status: { conditions: [{ type: RolloutHeldCondition, status, reason, message }] },
  };
}

describe('a held rollout as the CLI tells it', () => {
  it('every hold the node controller writes says what lifts it', () => {
    for (const reason of Object.values(HoldReason)) expect(holdLift(reason, 'worker')).not.toBe('');
    expect(holdLift(HoldReason.canary, 'infra')).toBe('run `mco rollout resume mcp/infra`');
    expect(holdLift('SomethingNew', 'worker')).toBe('');
  });

  it('reads the RolloutHeld condition only while it is True', () => {
    expect(poolHold(held('False', '', 'every node is on rendered-worker-b'))).toBeUndefined();
    expect(poolHold({ metadata: { name: 'worker' }, spec: {} })).toBeUndefined();
    expect(
      poolHold(held('True', HoldReason.soaking, 'Waiting for worker-0 to soak until …')),
    ).toEqual({
      reason: HoldReason.soaking,
      message: 'Waiting for worker-0 to soak until …',
      lift: 'it lifts by itself once the soak ends',
    });
  });

  it('names the command once: not again when the message already does', () => {
    const canary = poolHold(
      held(
        'True',
        HoldReason.canary,
        'Canary of 1 node(s) is on rendered-worker-b; the rest wait for `mco rollout resume mcp/worker`',
      ),
    );
    expect(canary && holdText(canary)).toBe(
      'held (CanaryWaiting): Canary of 1 node(s) is on rendered-worker-b; the rest wait for `mco rollout resume mcp/worker`',
    );
    const window = poolHold(
      held(
        'True',
        HoldReason.outsideWindow,
        'No node update starts outside a maintenance window; the next maintenance window opens at 2026-12-08T01:00:00Z',
      ),
    );
    expect(window && holdText(window)).toBe(
      "held (OutsideMaintenanceWindow): No node update starts outside a maintenance window; the next maintenance window opens at 2026-12-08T01:00:00Z; it lifts when a maintenance window opens; to start sooner, change the windows in the pool's rollout.mco.dev/policy annotation",
    );
    const reverted = poolHold(held('True', HoldReason.reverted, 'worker-0 failed the health gate'));
    expect(reverted && holdText(reverted)).toBe(
      'held (NodeReverted): worker-0 failed the health gate; run `mco rollout resume mcp/worker`',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { machineConfigNodePhase } from './machine-config-node-phase.js';
import { mcn } from '../../test/support/dashboard-objects.js';

describe('machineConfigNodePhase', () => {
  it.each([
    {
      name: 'no MachineConfigNode',
      conditions: undefined,
      want: { phase: '-', status: '' },
    },
    {
      name: 'all False before any update',
      conditions: { UpdatePrepared: 'False', Updated: 'False' },
      want: { phase: 'Pending', status: '' },
    },
    {
      name: 'preparing',
      conditions: { UpdatePrepared: 'Unknown', UpdateExecuted: 'False', Updated: 'False' },
      want: { phase: 'UpdatePrepared', status: 'Unknown' },
    },
    {
      name: 'executing after prepared',
      conditions: {
        UpdatePrepared: 'True',
        UpdateExecuted: 'Unknown',
        Drained: 'True',
        Updated: 'False',
      },
      want: { phase: 'UpdateExecuted', status: 'Unknown' },
    },
    {
      name: 'rebooted',
      conditions: {
        UpdatePrepared: 'True',
        UpdateExecuted: 'True',
        RebootedNode: 'Unknown',
        Updated: 'False',
      },
      want: { phase: 'RebootedNode', status: 'Unknown' },
    },
    {
      name: 'updated resets the rest',
      conditions: { UpdatePrepared: 'False', UpdateExecuted: 'False', Updated: 'True' },
      want: { phase: 'Updated', status: 'True' },
    },
    {
      name: 'degraded wins',
      conditions: { UpdatePrepared: 'True', UpdateExecuted: 'Unknown', NodeDegraded: 'True' },
      want: { phase: 'NodeDegraded', status: 'True' },
    },
  ])('$name → $want.phase', ({ conditions, want }) => {
    const got = machineConfigNodePhase(conditions === undefined ? undefined : mcn('w', conditions));
    expect({ phase: got.phase, status: got.status }).toEqual(want);
  });

  it('carries the message of the phase condition', () => {
    const got = machineConfigNodePhase(
      mcn('w', { UpdateExecuted: { status: 'Unknown', message: 'Draining node' } }),
    );
    expect(got).toEqual({ phase: 'UpdateExecuted', status: 'Unknown', message: 'Draining node' });
  });
});

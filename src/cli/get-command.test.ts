import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../dashboard/dashboard-snapshot.js';
import { mcn, node, pool } from '../dashboard/testing.js';
import { formatTable, nodeRows } from './get-command.js';

const A = 'rendered-worker-aaaa';
const B = 'rendered-worker-bbbb';
const M = 'rendered-master-mmmm';

function views() {
  return buildSnapshot({
    pools: [pool('master', { target: M }), pool('worker', { target: B })],
    nodes: [
      node('master-0', { role: 'master', current: M, desired: M, state: 'Done' }),
      node('worker-0', { current: A, desired: B, state: 'Working', unschedulable: true }),
      node('worker-1', {
        current: A,
        desired: A,
        state: 'Degraded',
        reason: 'content mismatch for file "/etc/chrony.conf"',
      }),
      node('lonely', { role: 'none', ready: false }),
    ],
    machineConfigNodes: [mcn('worker-0', { UpdatePrepared: 'True', UpdateExecuted: 'Unknown' })],
    machineConfigs: [],
    events: [],
  }).nodes;
}

describe('mco get nodes', () => {
  it('shows pool, readiness, state and current/desired config as kubectl lays out tables', () => {
    expect(formatTable(nodeRows(views(), false))).toBe(
      [
        'NAME       POOL     STATUS                     STATE      CURRENT                DESIRED',
        'lonely     <none>   NotReady                   <none>     <none>                 <none>',
        `master-0   master   Ready                      Done       ${M}   ${M}`,
        `worker-0   worker   Ready,SchedulingDisabled   Working    ${A}   ${B}`,
        `worker-1   worker   Ready                      Degraded   ${A}   ${A}`,
        '',
      ].join('\n'),
    );
  });

  it('-o wide adds the MachineConfigNode phase and the reason', () => {
    const rows = nodeRows(views(), true);
    expect(rows[0]).toEqual([
      'NAME',
      'POOL',
      'STATUS',
      'STATE',
      'CURRENT',
      'DESIRED',
      'PHASE',
      'REASON',
    ]);
    expect(rows.find((r) => r[0] === 'worker-0')?.slice(6)).toEqual(['UpdateExecuted', '<none>']);
    expect(rows.find((r) => r[0] === 'worker-1')?.slice(6, 8)[1]).toBe(
      'content mismatch for file "/etc/chrony.conf"',
    );
  });
});

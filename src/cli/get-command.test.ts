import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../dashboard/dashboard-snapshot.js';
import { machineConfig, mcn, node, pool } from '../../test/support/dashboard-objects.js';
import { RolloutAnnotation } from '../api/machineconfiguration/v1/rollout-policy.js';
import { Resources } from '../api/resource-refs.js';
import { formatTable } from './format-table.js';
import { nodeRows, parseGetArguments, poolRows } from './get-command.js';
import { parseOutputFormat, printObjects, withTypeMeta } from './resource-printer.js';

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

describe('mco get pools', () => {
  it('shows the target, updated/total, degraded and the rollout status', () => {
    const pools = buildSnapshot({
      pools: [pool('worker', { target: B, machineCount: 2 }), pool('infra', { paused: true })],
      nodes: [],
      machineConfigNodes: [],
      machineConfigs: [],
      events: [],
    }).pools;
    const rows = poolRows(pools, true);
    expect(rows[0]).toEqual([
      'NAME',
      'TARGET',
      'UPDATED',
      'DEGRADED',
      'STATUS',
      'CURRENT',
      'MAXUNAVAILABLE',
      'HELD',
      'MESSAGE',
    ]);
    expect(rows.find((r) => r[0] === 'infra')?.slice(1, 5)).toEqual([
      '<none>',
      '0/0',
      '0',
      expect.stringMatching(/,Paused$/),
    ]);
    expect(rows.find((r) => r[0] === 'worker')?.[1]).toBe(B);
    expect(rows.find((r) => r[0] === 'worker')?.[7]).toBe('<none>');
  });

  it('during a rollback the TARGET is the rollback’s config, Updated once every node is on it', () => {
    const rolledBack = pool('worker', {
      target: B,
      current: A,
      machineCount: 2,
      updated: 2,
      conditions: { Updated: 'True' },
    });
    const pools = buildSnapshot({
      pools: [
        {
          ...rolledBack,
          metadata: {
            ...rolledBack.metadata,
            annotations: {
              [RolloutAnnotation.rollback]: JSON.stringify({ to: A, from: B }),
            },
          },
        },
      ],
      nodes: [
        node('worker-0', { current: A, desired: A, state: 'Done' }),
        node('worker-1', { current: A, desired: A, state: 'Done' }),
      ],
      machineConfigNodes: [],
      machineConfigs: [machineConfig(A), machineConfig(B)],
      events: [],
    }).pools;
    expect(poolRows(pools, false)[1]).toEqual(['worker', A, '2/2', '0', 'Updated']);
  });

  it('shows a held rollout: ,Held in STATUS, the reason under HELD and the message', () => {
    const message =
      'No node update starts outside a maintenance window; the next maintenance window opens at 2026-12-08T01:00:00Z';
    const pools = buildSnapshot({
      pools: [
        pool('worker', {
          target: B,
          current: A,
          machineCount: 2,
          updated: 0,
          conditions: {
            Updated: 'False',
            Updating: 'True',
            RolloutHeld: { status: 'True', reason: 'OutsideMaintenanceWindow', message },
          },
        }),
      ],
      nodes: [],
      machineConfigNodes: [],
      machineConfigs: [],
      events: [],
    }).pools;
    expect(poolRows(pools, false)[1]?.[4]).toBe('Updating,Held');
    const row = poolRows(pools, true)[1] ?? [];
    expect(row[7]).toBe('OutsideMaintenanceWindow');
    expect(row[8]).toContain(`held (OutsideMaintenanceWindow): ${message}; it lifts when`);
  });
});

describe('mco get arguments', () => {
  it.each([
    [['nodes'], { kind: 'nodes', names: [] }],
    [['no', 'a', 'b'], { kind: 'nodes', names: ['a', 'b'] }],
    [['node/a', 'node/b'], { kind: 'nodes', names: ['a', 'b'] }],
    [['mcp/worker'], { kind: 'pools', names: ['worker'] }],
    [['MachineConfigPools.machineconfiguration.openshift.io'], { kind: 'pools', names: [] }],
  ])('%j', (args, expected) => {
    expect(parseGetArguments(args)).toEqual(expected);
  });

  it.each([[['pods']], [['node/a', 'mcp/b']], [['node/']], [[]]])('refuses %j', (args) => {
    expect(() => parseGetArguments(args)).toThrow();
  });
});

describe('output formats', () => {
  const nodes = [node('worker-0', {}), node('worker-1', {})].map((n) => {
    // The server leaves type meta off list items; the printer puts it back.
    const bare = { metadata: n.metadata, ...(n.spec === undefined ? {} : { spec: n.spec }) };
    return withTypeMeta(Resources.node, bare);
  });
  const format = (f: string) => {
    const parsed = parseOutputFormat(f);
    if (parsed.kind === 'table' || parsed.kind === 'wide') throw new Error('a table format');
    return parsed;
  };

  const listed = { single: false, showManagedFields: false };
  const byName = { single: true, showManagedFields: false };

  it('json and yaml leave managedFields out unless asked; jsonpath keeps them, as kubectl', () => {
    const managed = nodes.slice(0, 1).map((n) => ({
      ...n,
      metadata: { ...n.metadata, managedFields: [{ manager: 'kubectl', operation: 'Update' }] },
    }));
    expect(printObjects(Resources.node, managed, format('json'), listed)).not.toContain(
      'managedFields',
    );
    expect(printObjects(Resources.node, managed, format('yaml'), byName)).not.toContain(
      'managedFields',
    );
    expect(
      printObjects(Resources.node, managed, format('yaml'), {
        single: true,
        showManagedFields: true,
      }),
    ).toContain('managedFields:\n  - manager: kubectl');
    expect(
      printObjects(
        Resources.node,
        managed,
        format('jsonpath={.items[0].metadata.managedFields[0].manager}'),
        listed,
      ),
    ).toBe('kubectl');
  });

  it('json: a kind: List with resourceVersion "", four-space indent, keys sorted', () => {
    const text = printObjects(Resources.node, nodes, format('json'), listed);
    expect(text.startsWith('{\n    "apiVersion": "v1",\n    "items": [\n        {\n')).toBe(true);
    expect(
      text.endsWith(
        '    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n',
      ),
    ).toBe(true);
    const doc = JSON.parse(text) as { items: { kind: string; apiVersion: string }[] };
    expect(doc.items.map((i) => [i.apiVersion, i.kind])).toEqual([
      ['v1', 'Node'],
      ['v1', 'Node'],
    ]);
  });

  it('json and yaml of one object asked for by name: the object alone', () => {
    expect(
      JSON.parse(printObjects(Resources.node, nodes.slice(0, 1), format('json'), byName)),
    ).toMatchObject({
      kind: 'Node',
      metadata: { name: 'worker-0' },
    });
    expect(printObjects(Resources.node, nodes.slice(0, 1), format('yaml'), byName)).toMatch(
      /^apiVersion: v1\nkind: Node\nmetadata:\n/,
    );
  });

  it('yaml: the List as kubectl writes it', () => {
    const text = printObjects(Resources.node, nodes, format('yaml'), listed);
    expect(text).toMatch(/^apiVersion: v1\nitems:\n- apiVersion: v1\n {2}kind: Node\n/);
    expect(text.endsWith('kind: List\nmetadata:\n  resourceVersion: ""\n')).toBe(true);
  });

  it('name: kind/name, qualified by group outside the core group', () => {
    expect(printObjects(Resources.node, nodes, format('name'), listed)).toBe(
      'node/worker-0\nnode/worker-1\n',
    );
    const p = withTypeMeta(Resources.machineConfigPool, pool('worker'));
    expect(printObjects(Resources.machineConfigPool, [p], format('name'), byName)).toBe(
      'machineconfigpool.machineconfiguration.openshift.io/worker\n',
    );
  });

  it('jsonpath: kubectl templates, quoted or not', () => {
    expect(
      printObjects(Resources.node, nodes, format('jsonpath={.items[*].metadata.name}'), listed),
    ).toBe('worker-0 worker-1');
    expect(
      printObjects(
        Resources.node,
        nodes,
        format(`jsonpath='{range .items[*]}{.kind}{"\\n"}{end}'`),
        listed,
      ),
    ).toBe('Node\nNode\n');
  });

  it('refuses unknown formats and empty templates as kubectl does', () => {
    expect(() => parseOutputFormat('xml')).toThrow(
      /unable to match a printer suitable for the output format "xml"/,
    );
    expect(() => parseOutputFormat('jsonpath=')).toThrow(
      'template format specified but no template given',
    );
    expect(() => parseOutputFormat('jsonpath={.a[')).toThrow(/^error parsing jsonpath \{\.a\[, /);
  });
});

import { describe, expect, it } from 'vitest';
import type { Event } from '../api/core/v1/event.js';
import { buildSnapshot } from './dashboard-snapshot.js';
import { parseEventQuery, queryEvents } from './event-query.js';
import { node, pool } from '../../test/support/dashboard-objects.js';

function event(i: number, kind: string, name: string, type: string): Event {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `e${i}`, namespace: 'default' },
    involvedObject: { kind, name },
    type,
    reason: `R${i}`,
    message: `m${i}`,
    lastTimestamp: `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`,
  };
}

describe('events query', () => {
  const nodes = buildSnapshot({
    pools: [pool('worker'), pool('master')],
    nodes: [node('worker-0'), node('master-0', { role: 'master' })],
    machineConfigNodes: [],
    machineConfigs: [],
    events: [],
  }).nodes;
  const events = [
    event(1, 'MachineConfigPool', 'worker', 'Normal'),
    event(2, 'Node', 'worker-0', 'Warning'),
    event(3, 'MachineConfigNode', 'worker-0', 'Normal'),
    event(4, 'Node', 'master-0', 'Normal'),
    event(5, 'MachineConfigPool', 'master', 'Warning'),
  ];

  it('filters by pool (the pool and its nodes), node and type, newest first', () => {
    const q = (p: Record<string, string>) => {
      const parsed = parseEventQuery(p);
      if (!parsed.ok) throw new Error(parsed.error);
      return queryEvents(events, nodes, parsed.value).events.map((e) => e.reason);
    };
    expect(nodes.map((n) => [n.name, n.pool])).toEqual([
      ['master-0', 'master'],
      ['worker-0', 'worker'],
    ]);
    expect(q({ pool: 'worker' })).toEqual(['R3', 'R2', 'R1']);
    expect(q({ node: 'worker-0' })).toEqual(['R3', 'R2']);
    expect(q({ type: 'Warning' })).toEqual(['R5', 'R2']);
    expect(q({ pool: 'master', type: 'Warning' })).toEqual(['R5']);
    expect(q({})).toEqual(['R5', 'R4', 'R3', 'R2', 'R1']);
  });

  it('pages, and a page past the end is the last one', () => {
    const page = (n: number) => queryEvents(events, nodes, { page: n }, 2);
    expect(page(1)).toMatchObject({ page: 1, pages: 3, total: 5 });
    expect(page(3).events.map((e) => e.reason)).toEqual(['R1']);
    expect(page(99)).toMatchObject({ page: 3 });
  });

  it.each([
    [{ type: 'Error' }, 'type: Normal or Warning'],
    [{ pool: '../x' }, 'pool: not a pool name'],
    [{ node: 'a/b' }, 'node: not a node name'],
    [{ page: '0' }, 'page: a number from 1 to 10000'],
    [{ page: '-1' }, 'page: a number from 1'],
    [{ page: '1e3' }, 'page: a number from 1'],
    [{ page: '9'.repeat(30) }, 'page: a number from 1'],
  ])('refuses %j', (params, error) => {
    expect(parseEventQuery(params)).toEqual({ ok: false, error });
  });
});

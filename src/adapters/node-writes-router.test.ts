import { describe, expect, it } from 'vitest';
import { Resources } from '../api/resource-refs.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { routeNodeWrites } from './node-writes-router.js';

/** A client that only records which of its methods ran, on what. */
function recorder(name: string, calls: string[]): ResourceClient {
  const note =
    (method: string) =>
    (ref: { plural: string } | string): Promise<never> => {
      calls.push(`${name}.${method} ${typeof ref === 'string' ? ref : ref.plural}`);
      return Promise.resolve(undefined as never);
    };
  return {
    get: note('get'),
    list: note('list'),
    watch: note('watch'),
    create: note('create'),
    update: note('update'),
    updateStatus: note('updateStatus'),
    updateApproval: note('updateApproval'),
    patch: note('patch'),
    delete: note('delete'),
    evict: note('evict'),
  };
}

describe('routeNodeWrites', () => {
  it('writes Nodes as the node; reads everything and writes the rest as the ServiceAccount', async () => {
    const calls: string[] = [];
    const client = routeNodeWrites(recorder('sa', calls), recorder('node', calls));
    const node = { metadata: { name: 'w' } };
    await client.get(Resources.node, 'w');
    await client.list(Resources.node);
    await client.watch(Resources.node, { signal: new AbortController().signal }, () => undefined);
    await client.patch(Resources.node, 'w', {}, 'merge');
    await client.update(Resources.node, node);
    await client.updateStatus(Resources.node, node);
    await client.create(Resources.node, node);
    await client.delete(Resources.node, 'w');
    await client.get(Resources.machineConfig, 'mc');
    await client.updateStatus(Resources.machineConfigNode, node);
    await client.patch(Resources.machineConfigNode, 'w', {}, 'merge');
    await client.create(Resources.event, node);
    await client.evict('ns', 'pod');
    expect(calls).toEqual([
      'sa.get nodes',
      'sa.list nodes',
      'sa.watch nodes',
      'node.patch nodes',
      'node.update nodes',
      'node.updateStatus nodes',
      'node.create nodes',
      'node.delete nodes',
      'sa.get machineconfigs',
      'sa.updateStatus machineconfignodes',
      'sa.patch machineconfignodes',
      'sa.create events',
      'sa.evict ns',
    ]);
  });
});

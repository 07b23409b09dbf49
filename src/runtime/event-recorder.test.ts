import { describe, expect, it } from 'vitest';
import type { Event } from '../api/core/v1/event.js';
import { Resources } from '../api/resource-refs.js';
import { silentLogger } from '../ports/logger.js';
import { FakeClock } from '../../test/support/fake-clock.js';
import { FakeClient } from '../../test/support/fake-client.js';
import { ApiEventRecorder } from './event-recorder.js';

function setup() {
  const client = new FakeClient();
  const clock = new FakeClock(Date.UTC(2026, 10, 29, 9, 15, 0));
  const recorder = new ApiEventRecorder({
    client,
    clock,
    log: silentLogger,
    component: 'machineconfigcontroller-nodecontroller',
    host: 'h1',
  });
  return { client, clock, recorder };
}

const events = async (client: FakeClient, ns: string) =>
  (await client.list<Event>(Resources.event, { namespace: ns })).items;

describe('ApiEventRecorder', () => {
  it('records an event about a cluster-scoped object in `default`', async () => {
    const { client, recorder } = setup();
    await recorder.event(
      Resources.machineConfigPool,
      { metadata: { name: 'worker', uid: 'u1', resourceVersion: '7' } },
      'Normal',
      'SetDesiredConfig',
      'Targeted node n1 to MachineConfig: rendered-worker-1',
    );
    const [e] = await events(client, 'default');
    expect(e).toMatchObject({
      metadata: { namespace: 'default' },
      involvedObject: {
        kind: 'MachineConfigPool',
        apiVersion: 'machineconfiguration.openshift.io/v1',
        name: 'worker',
        uid: 'u1',
        resourceVersion: '7',
      },
      reason: 'SetDesiredConfig',
      message: 'Targeted node n1 to MachineConfig: rendered-worker-1',
      type: 'Normal',
      count: 1,
      source: { component: 'machineconfigcontroller-nodecontroller', host: 'h1' },
      firstTimestamp: '2026-11-29T09:15:00Z',
      lastTimestamp: '2026-11-29T09:15:00Z',
    });
    expect(e?.metadata.name).toMatch(/^worker\.[0-9a-f]+$/);
  });

  it('reads the uid of an object given by name only (the daemon names its Node), so describe finds it', async () => {
    const { client, recorder } = setup();
    client.seed(Resources.node, {
      metadata: { name: 'n1', uid: 'node-uid', resourceVersion: '4' },
    });
    await recorder.event(
      Resources.node,
      { metadata: { name: 'n1' } },
      'Normal',
      'NodeDone',
      'done',
    );
    // a Node that cannot be read still gets its event, without a uid
    await recorder.event(Resources.node, { metadata: { name: 'gone' } }, 'Normal', 'NodeDone', 'x');
    const list = await events(client, 'default');
    expect(list.map((e) => e.involvedObject)).toEqual([
      { kind: 'Node', apiVersion: 'v1', name: 'n1', uid: 'node-uid', resourceVersion: '1' },
      { kind: 'Node', apiVersion: 'v1', name: 'gone' },
    ]);
  });

  it('counts a repeat on the same Event and stamps its time', async () => {
    const { client, clock, recorder } = setup();
    const node = { metadata: { name: 'n1', uid: 'un' } };
    await recorder.event(Resources.node, node, 'Warning', 'DrainFailed', 'm');
    await clock.advance(60_000);
    await recorder.event(Resources.node, node, 'Warning', 'DrainFailed', 'm');
    const list = await events(client, 'default');
    expect(list.map((e) => [e.count, e.lastTimestamp])).toEqual([[2, '2026-11-29T09:16:00Z']]);
  });

  it('events about namespaced objects stay in their namespace; a failed write is swallowed', async () => {
    const { client, recorder } = setup();
    await recorder.event(
      Resources.pod,
      { metadata: { name: 'p', namespace: 'app' } },
      'Normal',
      'R',
      'x',
    );
    expect((await events(client, 'app')).length).toBe(1);
    client.create = () => Promise.reject(new Error('down'));
    await expect(
      recorder.event(
        Resources.pod,
        { metadata: { name: 'q', namespace: 'app' } },
        'Normal',
        'R',
        'y',
      ),
    ).resolves.toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { DaemonSet } from '../api/apps/v1/daemon-set.js';
import type { Pod } from '../api/core/v1/pod.js';
import { Resources } from '../api/resource-refs.js';
import { FakeClient } from '../../test/support/fake-client.js';
import type {
  DaemonContainerRecord,
  DaemonContainerRecordStore,
} from '../ports/daemon-container-record.js';
import { silentLogger } from '../ports/logger.js';
import type { ApiObject, ResourceRef } from '../ports/resource-client.js';
import { FakeClock } from '../../test/support/fake-clock.js';
import { DaemonPodKeeper } from './daemon-pod-keeper.js';
import { DaemonNamespace } from './daemon-pod.js';

/** A FakeClient that names generateName objects and gives every object a uid, as a server does. */
class ServerLikeClient extends FakeClient {
  #n = 0;
  override create<T extends ApiObject>(ref: ResourceRef, object: T): Promise<T> {
    this.#n += 1;
    const meta = object.metadata;
    const name = meta.name ?? `${meta.generateName ?? ''}x${String(this.#n).padStart(4, '0')}`;
    return super.create(ref, { ...object, metadata: { ...meta, name, uid: `uid-${this.#n}` } });
  }
}

class MemoryRecords implements DaemonContainerRecordStore {
  record: DaemonContainerRecord | undefined;
  size = 0;
  read = () => Promise.resolve(this.record);
  write = (r: DaemonContainerRecord) => {
    this.record = structuredClone(r);
    return Promise.resolve();
  };
  logSize = () => Promise.resolve(this.size);
}

interface ContainerStatusView {
  readonly ready?: boolean;
  readonly restartCount?: number;
  readonly state?: Record<string, unknown>;
  readonly lastState?: Record<string, unknown>;
}

/** The pod's first container status, as the kubelet part wrote it. */
const containerStatus = (pod: Pod | undefined): ContainerStatusView | undefined =>
  (pod?.status as { containerStatuses?: ContainerStatusView[] } | undefined)
    ?.containerStatuses?.[0];

function setup() {
  const client = new ServerLikeClient();
  client.seed(Resources.node, { metadata: { name: 'worker-0' } });
  const records = new MemoryRecords();
  const clock = new FakeClock();
  const keeper = new DaemonPodKeeper({
    nodeName: 'worker-0',
    creator: client,
    kubelet: client,
    records,
    clock,
    log: silentLogger,
    image: 'localhost/mco:test',
  });
  const pods = async () =>
    (await client.list<Pod>(Resources.pod, { namespace: DaemonNamespace })).items;
  return { client, records, clock, keeper, pods };
}

describe('DaemonPodKeeper', () => {
  it('creates the DaemonSet and one pod for the node, as upstream names them', async () => {
    const { client, keeper, records, pods } = setup();
    expect(await keeper.sync(true)).toBe('unchanged');
    const ds = await client.get<DaemonSet>(
      Resources.daemonSet,
      'machine-config-daemon',
      DaemonNamespace,
    );
    expect(ds.spec?.selector.matchLabels).toEqual({ 'k8s-app': 'machine-config-daemon' });
    const [pod, ...more] = await pods();
    expect(more).toEqual([]);
    expect(pod?.metadata.name).toMatch(/^machine-config-daemon-/);
    expect(pod?.spec?.nodeName).toBe('worker-0');
    expect(pod?.spec?.containers.map((c) => c.name)).toEqual(['machine-config-daemon']);
    expect(pod?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'DaemonSet',
      uid: ds.metadata.uid,
      controller: true,
    });
    expect(records.record?.pod?.uid).toBe(pod?.metadata.uid);
    // a second sync finds it and makes no second pod
    expect(await keeper.sync(true)).toBe('unchanged');
    expect(await pods()).toHaveLength(1);
  });

  it('reports each run of the daemon as a container instance with its log range', async () => {
    const { keeper, records, pods, clock } = setup();
    await keeper.sync(true);
    records.size = 100;
    await keeper.beginInstance();
    await keeper.running(4242);
    let [pod] = await pods();
    let status = containerStatus(pod);
    expect(status?.ready).toBe(true);
    expect(status?.restartCount).toBe(0);
    expect(status?.state).toHaveProperty('running');
    expect(pod?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    records.size = 350;
    await clock.advance(1000);
    await keeper.finished({ code: null, signal: 'SIGTERM' });
    [pod] = await pods();
    status = containerStatus(pod);
    expect(status?.ready).toBe(false);
    expect(status?.state).toMatchObject({ terminated: { exitCode: 143, reason: 'Error' } });

    await keeper.beginInstance();
    await keeper.running(4343);
    [pod] = await pods();
    status = containerStatus(pod);
    expect(status?.restartCount).toBe(1);
    expect(status?.lastState).toMatchObject({ terminated: { exitCode: 143 } });
    expect(records.record?.instances.map((i) => [i.offset, i.endOffset, i.pid])).toEqual([
      [100, 350, 4242],
      [350, undefined, 4343],
    ]);
  });

  it('replaces a deleted pod with a new one whose log starts afresh', async () => {
    const { client, keeper, records, pods, clock } = setup();
    await keeper.sync(true);
    await keeper.beginInstance();
    const [first] = await pods();
    await client.delete(Resources.pod, first?.metadata.name ?? '', DaemonNamespace);
    // not due yet: no look at the API
    expect(await keeper.sync()).toBe('unchanged');
    await clock.advance(10_000);
    expect(await keeper.sync()).toBe('recreated');
    const [second, ...more] = await pods();
    expect(more).toEqual([]);
    expect(second?.metadata.uid).not.toBe(first?.metadata.uid);
    expect(records.record?.pod?.uid).toBe(second?.metadata.uid);
    expect(records.record?.instances).toEqual([]);
  });

  it('keeps the daemon running when the API server cannot be reached, and catches up', async () => {
    const { client, keeper, records, pods, clock } = setup();
    const list = client.list.bind(client);
    let down = true;
    client.list = (ref: ResourceRef, o?: { namespace?: string }) =>
      down ? Promise.reject(new Error('ECONNREFUSED')) : list(ref, o);
    expect(await keeper.sync(true)).toBe('unchanged');
    await keeper.beginInstance();
    await keeper.running(7);
    expect(records.record?.instances).toHaveLength(1);
    down = false;
    await clock.advance(1000);
    await keeper.sync();
    const [pod] = await pods();
    expect(containerStatus(pod)?.ready).toBe(true);
  });
});

/**
 * Keeps a simulated node's daemon visible as Kubernetes shows it upstream: plays the DaemonSet
 * controller for this node (the `machine-config-daemon` DaemonSet exists, the node has one pod of
 * it, a deleted pod is replaced by a new one) with a control-plane identity, and the kubelet's
 * container bookkeeping with the node's own identity (each run of the daemon process is a
 * container instance: recorded in the node folder for `pods/log`, reported in `pods/status`).
 *
 * API writes are best effort: the daemon runs whether or not the API server answers, and what
 * could not be written is written at the next `sync`.
 */
import { randomBytes } from 'node:crypto';
import type { DaemonSet } from '../api/apps/v1/daemon-set.js';
import type { Node } from '../api/core/v1/node.js';
import type { Pod } from '../api/core/v1/pod.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import type { Clock } from '../ports/clock.js';
import type {
  ContainerInstance,
  DaemonContainerRecord,
  DaemonContainerRecordStore,
} from '../ports/daemon-container-record.js';
import type { Logger } from '../ports/logger.js';
import type { ProcessExit } from '../ports/process-launcher.js';
import type { ResourceClient } from '../ports/resource-client.js';
import {
  containerExitCode,
  DaemonContainerName,
  DaemonNamespace,
  daemonPodObject,
  DaemonPodSelector,
  daemonPodStatus,
  daemonSetObject,
  daemonSetOwner,
  daemonSetStatus,
  DaemonSetName,
} from './daemon-pod.js';
import { errorText } from '../lib/error-text.js';

export interface DaemonPodKeeperOptions {
  readonly nodeName: string;
  /** Creates the DaemonSet and its pods (the DaemonSet controller's part). */
  readonly creator: ResourceClient;
  /** The node identity: the pod's status (the kubelet's part); else given by `useKubelet`. */
  readonly kubelet?: ResourceClient;
  readonly records: DaemonContainerRecordStore;
  readonly clock: Clock;
  readonly log: Logger;
  /** The image the pods name. */
  readonly image: string;
  readonly hostIp?: string;
  /** How often `sync` looks at the pod even when nothing changed (default 10 s). */
  readonly syncMs?: number;
}

/** How many container instances the record keeps (the kubelet keeps the current and previous). */
const KeptInstances = 5;

const isoNow = (clock: Clock): string => new Date(clock.now()).toISOString();

const containerId = (): string => `cri-o://${randomBytes(32).toString('hex')}`;

export type SyncResult = 'unchanged' | 'recreated';

export class DaemonPodKeeper {
  readonly #o: DaemonPodKeeperOptions;
  #record: DaemonContainerRecord | undefined;
  #pod: Pod | undefined;
  #statusDirty = true;
  #nextSyncAt = 0;
  #failures = 0;

  #kubelet: ResourceClient | undefined;

  constructor(options: DaemonPodKeeperOptions) {
    this.#o = options;
    this.#kubelet = options.kubelet;
  }

  /** The node identity, once the kubelet has one (TLS bootstrapping). */
  useKubelet(client: ResourceClient): void {
    this.#kubelet = client;
  }

  async #loadRecord(): Promise<DaemonContainerRecord> {
    this.#record ??= (await this.#o.records.read()) ?? {
      container: DaemonContainerName,
      instances: [],
    };
    return this.#record;
  }

  async #saveRecord(record: DaemonContainerRecord): Promise<void> {
    this.#record = record;
    await this.#o.records.write(record);
  }

  /** Records a new container instance; call just before the daemon process starts. */
  async beginInstance(): Promise<void> {
    const record = await this.#loadRecord();
    const previous = record.instances.at(-1);
    const instance: ContainerInstance = {
      restartCount: previous === undefined ? 0 : previous.restartCount + 1,
      containerId: containerId(),
      startedAt: isoNow(this.#o.clock),
      offset: await this.#o.records.logSize(),
    };
    await this.#saveRecord({
      ...record,
      instances: [...record.instances.slice(-(KeptInstances - 1)), instance],
    });
  }

  /** The daemon process of the current instance started. */
  async running(pid: number): Promise<void> {
    await this.#updateCurrent((i) => ({ ...i, pid }));
  }

  /** The daemon process of the current instance exited; its output ends here. */
  async finished(exit: ProcessExit): Promise<void> {
    const endOffset = await this.#o.records.logSize();
    await this.#updateCurrent((i) =>
      i.finishedAt !== undefined
        ? i
        : {
            ...i,
            finishedAt: isoNow(this.#o.clock),
            endOffset,
            exitCode: containerExitCode(exit.code, exit.signal),
            ...(exit.signal === null ? {} : { signal: exit.signal }),
          },
    );
  }

  async #updateCurrent(change: (i: ContainerInstance) => ContainerInstance): Promise<void> {
    const record = await this.#loadRecord();
    const current = record.instances.at(-1);
    if (current === undefined) return;
    await this.#saveRecord({
      ...record,
      instances: [...record.instances.slice(0, -1), change(current)],
    });
    this.#statusDirty = true;
    // Only the status: replacing a deleted pod is `sync`'s, whose caller restarts the daemon.
    try {
      await this.#pushStatus();
    } catch (e) {
      this.#warn(e);
    }
  }

  #warn(e: unknown): void {
    this.#o.log.warn('could not update the daemon pod; retrying', {
      node: this.#o.nodeName,
      error: errorText(e),
    });
  }

  /**
   * Makes the API objects match: the DaemonSet and this node's pod exist (a pod deleted by someone
   * is replaced: `recreated`, and the caller restarts the daemon in it), and the pod's status
   * shows the current instance. Runs at most every `syncMs` (sooner after a failure) unless
   * `force`.
   */
  async sync(force = false): Promise<SyncResult> {
    const now = this.#o.clock.now();
    if (!force && now < this.#nextSyncAt) return 'unchanged';
    const period = this.#o.syncMs ?? 10_000;
    try {
      const result = await this.#ensurePod();
      if (this.#statusDirty || result === 'recreated') await this.#pushStatus();
      this.#failures = 0;
      this.#nextSyncAt = now + period;
      return result;
    } catch (e) {
      this.#warn(e);
      this.#statusDirty = true;
      this.#failures += 1;
      this.#nextSyncAt = now + Math.min(period, 500 * 2 ** Math.min(this.#failures, 10));
      return 'unchanged';
    }
  }

  async #daemonSet(): Promise<DaemonSet> {
    const { creator, image } = this.#o;
    try {
      return await creator.get<DaemonSet>(Resources.daemonSet, DaemonSetName, DaemonNamespace);
    } catch (e) {
      if (!isStatusError(e, 'NotFound')) throw e;
    }
    try {
      return await creator.create<DaemonSet>(Resources.daemonSet, daemonSetObject(image));
    } catch (e) {
      if (!isStatusError(e, 'AlreadyExists')) throw e;
      return creator.get<DaemonSet>(Resources.daemonSet, DaemonSetName, DaemonNamespace);
    }
  }

  /** The node's live daemon pod, or undefined. */
  async #findPod(): Promise<Pod | undefined> {
    const pods = await this.#o.creator.list<Pod>(Resources.pod, {
      namespace: DaemonNamespace,
      labelSelector: DaemonPodSelector,
      fieldSelector: `spec.nodeName=${this.#o.nodeName}`,
    });
    return pods.items.find((p) => p.metadata.deletionTimestamp == null);
  }

  async #ensurePod(): Promise<SyncResult> {
    const record = await this.#loadRecord();
    const found = await this.#findPod();
    if (found !== undefined && record.pod?.uid === found.metadata.uid) {
      this.#pod = found;
      return 'unchanged';
    }
    if (found !== undefined && record.pod === undefined) {
      // A pod made before this node kept a record (or the record was lost): adopt it.
      this.#pod = found;
      await this.#saveRecord({ ...record, pod: podRef(found) });
      this.#statusDirty = true;
      return 'unchanged';
    }
    const pod =
      found ??
      (await this.#o.creator.create<Pod>(
        Resources.pod,
        daemonPodObject(this.#o.nodeName, daemonSetOwner(await this.#daemonSet()), this.#o.image),
      ));
    const hadPod = record.pod !== undefined;
    this.#pod = pod;
    this.#o.log.info(hadPod ? 'daemon pod replaced' : 'daemon pod created', {
      node: this.#o.nodeName,
      pod: pod.metadata.name,
      previous: record.pod?.name,
    });
    // A replacing pod is a new container: its restarts count from 0 and the old pod's logs go
    // (the caller restarts the daemon in it). A first pod takes the runs made before it existed.
    await this.#saveRecord({
      ...record,
      pod: podRef(pod),
      instances: hadPod ? [] : record.instances,
    });
    this.#statusDirty = true;
    return hadPod ? 'recreated' : 'unchanged';
  }

  async #pushStatus(): Promise<void> {
    const pod = this.#pod;
    const record = this.#record;
    if (pod?.metadata.name === undefined || record === undefined) return;
    const first = record.instances[0];
    const now = isoNow(this.#o.clock).replace(/\.\d+Z$/, 'Z');
    const status = daemonPodStatus({
      instances: record.instances,
      image: this.#o.image,
      hostIp: this.#o.hostIp ?? '127.0.0.1',
      startTime:
        typeof pod.status?.startTime === 'string'
          ? pod.status.startTime
          : (first?.startedAt.replace(/\.\d+Z$/, 'Z') ?? now),
      now,
      ...(pod.status?.conditions === undefined
        ? {}
        : { previousConditions: pod.status.conditions }),
    });
    const kubelet = this.#kubelet;
    // no node identity yet: the status waits (dirty) for the next sync
    if (kubelet === undefined) throw new Error('the kubelet has no node identity yet');
    this.#pod = await kubelet.patch<Pod>(Resources.pod, pod.metadata.name, { status }, 'merge', {
      namespace: DaemonNamespace,
      subresource: 'status',
    });
    this.#statusDirty = false;
    await this.#updateDaemonSetStatus();
  }

  async #updateDaemonSetStatus(): Promise<void> {
    const { creator } = this.#o;
    for (let attempt = 0; attempt < 5; attempt++) {
      const ds = await this.#daemonSet();
      const [pods, nodes] = await Promise.all([
        creator.list<Pod>(Resources.pod, {
          namespace: DaemonNamespace,
          labelSelector: DaemonPodSelector,
        }),
        creator.list<Node>(Resources.node),
      ]);
      const status = daemonSetStatus(ds.metadata.generation ?? 1, nodes.items.length, pods.items);
      if (JSON.stringify(ds.status) === JSON.stringify(status)) return;
      try {
        await creator.updateStatus<DaemonSet>(Resources.daemonSet, { ...ds, status });
        return;
      } catch (e) {
        if (!isStatusError(e, 'Conflict')) throw e;
      }
    }
  }
}

function podRef(pod: Pod): { namespace: string; name: string; uid: string } {
  return {
    namespace: pod.metadata.namespace ?? DaemonNamespace,
    name: pod.metadata.name ?? '',
    uid: pod.metadata.uid ?? '',
  };
}

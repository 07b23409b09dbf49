/**
 * The simulated kubelet of a node: registers the Node with the node identity (labels, nodeInfo
 * from the booted OS, Ready), keeps Ready=True with heartbeats, reports NotReady while the node
 * reboots or shuts down, and keeps the node's workload pods: missing ones are created (with an
 * identity allowed to, standing in for the ReplicaSet controller and the scheduler) while the node
 * is schedulable, and marked Running through `pods/status` as the kubelet would.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Node, NodeStatus } from '../api/core/v1/node.js';
import type { Pod } from '../api/core/v1/pod.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { type Clock } from '../ports/clock.js';
import { rfc3339 } from '../api/meta/v1/time.js';
import type { Logger } from '../ports/logger.js';
import type { BootedOs, NodeDefinition } from '../ports/node-machine.js';
import type { ResourceClient } from '../ports/resource-client.js';
import {
  machineId,
  newNodeObject,
  nodeLabels,
  nodeStatus,
  runningPodStatus,
  workloadPod,
  WorkloadLabel,
  WorkloadNamespace,
  type ReadyState,
} from './node-objects.js';

export interface KubeletOptions {
  readonly definition: NodeDefinition;
  /** The node identity: its own Node and its pods' status. */
  readonly nodeClient: ResourceClient;
  /** Creates the workload pods; without it the node runs none. */
  readonly workloadClient?: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly heartbeatMs: number;
  /** The node's InternalIP. */
  readonly address?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const PodSuffixAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

function podSuffix(): string {
  return [...randomBytes(5)].map((b) => PodSuffixAlphabet.charAt(b % 27)).join('');
}

async function withConflictRetry<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      if (i >= 5 || !isStatusError(e, 'Conflict')) throw e;
    }
  }
}

export class SimulatedKubelet {
  readonly #o: KubeletOptions;
  readonly #machineId: string;
  readonly #ownerUid: string;
  #booted: BootedOs | undefined;
  #loop: { stop: AbortController; done: Promise<void> } | undefined;

  constructor(options: KubeletOptions) {
    this.#o = options;
    this.#machineId = machineId(options.definition.name, sha256);
    const h = sha256(`replicaset:${options.definition.name}`);
    this.#ownerUid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  }

  get #name(): string {
    return this.#o.definition.name;
  }

  /** Registers (or updates) the Node for this boot, reports Ready, starts heartbeats. */
  async register(booted: BootedOs): Promise<void> {
    await this.stopHeartbeats();
    this.#booted = booted;
    const { nodeClient: client } = this.#o;
    await withConflictRetry(async () => {
      let node: Node;
      try {
        node = await client.get<Node>(Resources.node, this.#name);
      } catch (e) {
        if (!isStatusError(e, 'NotFound')) throw e;
        node = await client.create<Node>(
          Resources.node,
          newNodeObject(this.#o.definition, booted.osId),
        );
        this.#o.log.info('registered node', { node: this.#name });
      }
      const labels = { ...node.metadata.labels, ...nodeLabels(this.#o.definition, booted.osId) };
      const changed = Object.entries(labels).some(([k, v]) => node.metadata.labels?.[k] !== v);
      if (changed)
        node = await client.update<Node>(Resources.node, {
          ...node,
          metadata: { ...node.metadata, labels },
        });
    });
    await this.#writeStatus({ ready: true });
    this.#o.log.info('node ready', { node: this.#name, bootId: booted.bootId });
    this.#startHeartbeats();
  }

  /** Stops heartbeats and reports Ready=False with the kubelet's reason and a message. */
  async notReady(message: string): Promise<void> {
    await this.stopHeartbeats();
    if (this.#booted === undefined) return;
    await this.#writeStatus({ ready: false, reason: 'KubeletNotReady', message });
    this.#o.log.info('node not ready', { node: this.#name, message });
  }

  async stopHeartbeats(): Promise<void> {
    const loop = this.#loop;
    this.#loop = undefined;
    if (loop === undefined) return;
    loop.stop.abort();
    await loop.done;
  }

  async #writeStatus(state: ReadyState): Promise<void> {
    const booted = this.#booted;
    if (booted === undefined) return;
    const client = this.#o.nodeClient;
    await withConflictRetry(async () => {
      const node = await client.get<Node>(Resources.node, this.#name);
      const status: NodeStatus = nodeStatus({
        def: this.#o.definition,
        booted,
        state,
        now: rfc3339(this.#o.clock.now()),
        machineId: this.#machineId,
        address: this.#o.address ?? '127.0.0.1',
        ...(node.status === undefined ? {} : { previous: node.status }),
      });
      await client.updateStatus<Node>(Resources.node, {
        ...node,
        status: { ...node.status, ...status },
      });
    });
  }

  #startHeartbeats(): void {
    const stop = new AbortController();
    const run = async () => {
      for (let beat = 0; ; beat++) {
        try {
          if (beat > 0) await this.#writeStatus({ ready: true });
          await this.#keepWorkloads();
        } catch (e) {
          this.#o.log.warn('heartbeat failed', { node: this.#name, error: String(e) });
        }
        try {
          await this.#o.clock.sleep(this.#o.heartbeatMs, stop.signal);
        } catch {
          return;
        }
      }
    };
    this.#loop = { stop, done: run() };
  }

  /** Creates missing workload pods while the node is schedulable; reports ours Running. */
  async #keepWorkloads(): Promise<void> {
    const creator = this.#o.workloadClient;
    if (creator === undefined) return;
    const pods = await creator.list<Pod>(Resources.pod, {
      namespace: WorkloadNamespace,
      labelSelector: `${WorkloadLabel}=${this.#name}`,
    });
    const live = pods.items.filter((p) => p.metadata.deletionTimestamp == null);
    const node = await this.#o.nodeClient.get<Node>(Resources.node, this.#name);
    if (node.spec?.unschedulable !== true) {
      for (let i = live.length; i < this.#o.definition.pods; i++) {
        const pod = await creator.create<Pod>(
          Resources.pod,
          workloadPod(this.#name, podSuffix(), this.#ownerUid),
        );
        live.push(pod);
        this.#o.log.info('workload pod scheduled', { node: this.#name, pod: pod.metadata.name });
      }
    }
    const now = rfc3339(this.#o.clock.now());
    for (const pod of live) {
      if (pod.status?.phase === 'Running' || pod.metadata.name === undefined) continue;
      await this.#o.nodeClient.patch(
        Resources.pod,
        pod.metadata.name,
        { status: runningPodStatus(now, this.#o.address ?? '127.0.0.1', '10.128.0.10') },
        'merge',
        { namespace: WorkloadNamespace, subresource: 'status' },
      );
    }
  }
}

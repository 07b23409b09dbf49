/**
 * The dashboard's watches: one informer each for pools, nodes, MachineConfigNodes, MachineConfigs
 * and events (all namespaces), through the ResourceClient. Every change marks the snapshot stale;
 * changes are coalesced for `coalesceMs` so a burst (a rollout step writes a node, its
 * MachineConfigNode and the pool within milliseconds) reaches subscribers as one new snapshot, and
 * a snapshot equal to the last one sent is not sent again.
 */
import type { Event } from '../api/core/v1/event.js';
import type { Node } from '../api/core/v1/node.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../api/resource-refs.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../ports/resource-client.js';
import { Informer } from '../runtime/informer.js';
import {
  readMachineConfiguration,
  type MachineConfigurationRead,
} from '../runtime/read-machine-configuration.js';
import {
  buildSnapshot,
  type DashboardSnapshot,
  type SnapshotInputs,
} from './dashboard-snapshot.js';

export interface DashboardCacheOptions {
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  /** How long changes are gathered before subscribers hear of them (default 100 ms). */
  readonly coalesceMs?: number;
}

export type SnapshotListener = (snapshot: DashboardSnapshot) => void;

export class DashboardCache {
  readonly #o: DashboardCacheOptions;
  readonly #pools: Informer<MachineConfigPool>;
  readonly #nodes: Informer<Node>;
  readonly #mcns: Informer<MachineConfigNode>;
  readonly #configs: Informer<MachineConfig>;
  readonly #events: Informer<Event>;
  readonly #listeners = new Set<SnapshotListener>();
  #snapshot: DashboardSnapshot | undefined;
  #sentJson = '';
  #flushPending = false;
  #signal: AbortSignal | undefined;

  constructor(options: DashboardCacheOptions) {
    this.#o = options;
    const informer = <T extends ApiObject>(ref: ResourceRef): Informer<T> => {
      const i = new Informer<T>({
        client: options.client,
        ref,
        clock: options.clock,
        log: options.log,
      });
      const changed = (): void => {
        this.#changed();
      };
      i.addHandler({ onAdd: changed, onUpdate: changed, onDelete: changed });
      return i;
    };
    this.#pools = informer(Resources.machineConfigPool);
    this.#nodes = informer(Resources.node);
    this.#mcns = informer(Resources.machineConfigNode);
    this.#configs = informer(Resources.machineConfig);
    this.#events = informer(Resources.event);
  }

  #all(): Informer[] {
    return [this.#pools, this.#nodes, this.#mcns, this.#configs, this.#events] as Informer[];
  }

  /** Runs the watches until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    await Promise.all(this.#all().map((i) => i.run(signal)));
  }

  /** Resolves once every watch has listed. */
  async synced(signal?: AbortSignal): Promise<void> {
    await Promise.all(this.#all().map((i) => i.waitForSync(signal)));
  }

  hasSynced(): boolean {
    return this.#all().every((i) => i.hasSynced());
  }

  inputs(): SnapshotInputs {
    return {
      pools: this.#pools.list(),
      nodes: this.#nodes.list(),
      machineConfigNodes: this.#mcns.list(),
      machineConfigs: this.#configs.list(),
      events: this.#events.list(),
      now: this.#o.clock.now(),
    };
  }

  snapshot(): DashboardSnapshot {
    this.#snapshot ??= buildSnapshot(this.inputs());
    return this.#snapshot;
  }

  machineConfig(name: string): MachineConfig | undefined {
    return this.#configs.get(name);
  }

  /** A direct GET: read only when a plan is asked for, so an identity that may not read it still watches. */
  machineConfiguration(signal?: AbortSignal): Promise<MachineConfigurationRead> {
    return readMachineConfiguration(this.#o.client, signal);
  }

  /** Calls `listener` with every new snapshot; returns the unsubscribe function. */
  subscribe(listener: SnapshotListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  #changed(): void {
    this.#snapshot = undefined;
    if (this.#flushPending) return;
    this.#flushPending = true;
    this.#o.clock
      .sleep(this.#o.coalesceMs ?? 100, this.#signal)
      .catch(() => undefined)
      .finally(() => {
        this.#flushPending = false;
        this.#flush();
      });
  }

  #flush(): void {
    if (this.#signal?.aborted === true || this.#listeners.size === 0) return;
    const snapshot = this.snapshot();
    const json = JSON.stringify(snapshot);
    if (json === this.#sentJson) return;
    this.#sentJson = json;
    for (const listener of this.#listeners) {
      try {
        listener(snapshot);
      } catch (e) {
        this.#o.log.warn('a snapshot listener failed', { error: String(e) });
      }
    }
  }
}

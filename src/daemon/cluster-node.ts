/**
 * The daemon's side of the cluster protocol for its own Node (docs/reference/rollout.md §4.2,
 * docs/reference/drain.md §5, docs/reference/daemon.md §7):
 * the state annotations (Working / Done / Degraded / Unreconcilable with the reason), the drain
 * request protocol (`desiredDrain` ← daemon, `lastAppliedDrain` ← drain controller),
 * `post-config-action`, MachineConfigNode conditions, events, and reading the rendered
 * MachineConfigs and MachineConfiguration/cluster. The Node itself is read from an informer the
 * daemon runs (a node identity may only watch its own Node).
 */
import type { Node } from '../api/core/v1/node.js';
import {
  Annotation,
  DaemonState,
  MachineConfigNodeConditionType as T,
} from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { type Clock } from '../ports/clock.js';
import { rfc3339 } from '../api/meta/v1/time.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import {
  readMachineConfiguration,
  type MachineConfigurationRead,
} from '../runtime/read-machine-configuration.js';
import { truncateReason } from '../logic/nodeplan/node-reason.js';
import { nextMcnConditions, type McnCondition } from './machine-config-node-status.js';
import { errorText } from '../lib/error-text.js';
import {
  AuditAnnotation,
  MaxDaemonRecords,
  type DaemonUpdateRecord,
} from '../api/machineconfiguration/v1/update-audit.js';
import { readDaemonRecords } from '../logic/audit/node-update-record.js';

/** The latest Node as the daemon's informer has it. */
export interface NodeSource {
  get(): Node | undefined;
  /** Resolves on the next change of the Node (or after `maxWaitMs`). */
  changed(maxWaitMs: number, signal?: AbortSignal): Promise<void>;
}

export interface ClusterNodeOptions {
  readonly name: string;
  readonly client: ResourceClient;
  readonly nodes: NodeSource;
  readonly clock: Clock;
  readonly log: Logger;
}

export type { MachineConfigurationRead } from '../runtime/read-machine-configuration.js';

/** A condition message holds at most 32 KiB (metav1.Condition's maxLength). */
const MaxConditionText = 32_768;

function clip(c: McnCondition): McnCondition;
function clip(c: McnCondition | undefined): McnCondition | undefined;
function clip(c: McnCondition | undefined): McnCondition | undefined {
  return c && { ...c, message: c.message.slice(0, MaxConditionText) };
}

export class ClusterNode {
  readonly name: string;
  readonly #o: ClusterNodeOptions;

  constructor(options: ClusterNodeOptions) {
    this.name = options.name;
    this.#o = options;
  }

  node(): Node | undefined {
    return this.#o.nodes.get();
  }

  annotation(key: string): string | undefined {
    return this.node()?.metadata.annotations?.[key];
  }

  /**
   * Merge-patches annotations (null deletes). A patch that changes nothing is not sent: every
   * write wakes the daemon's own sync, and a failing sync rewriting the same reason must not
   * loop.
   */
  async patchAnnotations(values: Readonly<Record<string, string | null>>): Promise<void> {
    const current = this.node()?.metadata.annotations ?? {};
    const changes = Object.entries(values).some(([k, v]) =>
      v === null ? k in current : current[k] !== v,
    );
    if (!changes) return;
    await this.#o.client.patch<Node>(
      Resources.node,
      this.name,
      { metadata: { annotations: values } },
      'merge',
    );
  }

  /** SetWorking, unless the node is Degraded or Unreconcilable (a retry keeps its state). */
  async setWorking(): Promise<void> {
    const state = this.annotation(Annotation.state);
    if (state === DaemonState.Degraded || state === DaemonState.Unreconcilable) return;
    if (state === DaemonState.Working) return;
    await this.patchAnnotations({ [Annotation.state]: DaemonState.Working });
  }

  /** Done on `config`; with the update that brought it there added to the audit's record. */
  async setDone(config: string, record?: DaemonUpdateRecord): Promise<void> {
    await this.patchAnnotations({
      [Annotation.state]: DaemonState.Done,
      [Annotation.currentConfig]: config,
      [Annotation.reason]: '',
      ...(record === undefined
        ? {}
        : {
            [AuditAnnotation.lastUpdates]: JSON.stringify(
              [...readDaemonRecords(this.annotation(AuditAnnotation.lastUpdates)), record].slice(
                -MaxDaemonRecords,
              ),
            ),
          }),
    });
  }

  async setFailed(state: 'Degraded' | 'Unreconcilable', reason: string): Promise<void> {
    await this.patchAnnotations({
      [Annotation.state]: state,
      [Annotation.reason]: truncateReason(reason),
    });
  }

  async setPostConfigAction(value: string): Promise<void> {
    await this.patchAnnotations({ [Annotation.postConfigAction]: value });
  }

  /**
   * The drain request protocol: ask for `value` (drain-<cfg> / uncordon-<cfg>) unless already
   * granted, then wait until the drain controller copies it to lastAppliedDrain. Returns false on
   * timeout.
   */
  async requestDrain(value: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const granted = (): boolean => this.annotation(Annotation.lastAppliedDrain) === value;
    if (granted()) return true;
    if (this.annotation(Annotation.desiredDrain) !== value)
      await this.patchAnnotations({ [Annotation.desiredDrain]: value });
    const deadline = this.#o.clock.now() + timeoutMs;
    while (!granted()) {
      const left = deadline - this.#o.clock.now();
      if (left <= 0) return false;
      await this.#o.nodes.changed(Math.min(left, 10_000), signal);
      signal?.throwIfAborted();
    }
    return true;
  }

  async getMachineConfig(name: string, signal?: AbortSignal): Promise<MachineConfig> {
    return this.#o.client.get<MachineConfig>(Resources.machineConfig, name, undefined, signal);
  }

  /** The pools, to find the one that selects this node (adoption). */
  async machineConfigPools(signal?: AbortSignal): Promise<readonly MachineConfigPool[]> {
    const list = await this.#o.client.list<MachineConfigPool>(
      Resources.machineConfigPool,
      signal === undefined ? {} : { signal },
    );
    return list.items;
  }

  async machineConfiguration(signal?: AbortSignal): Promise<MachineConfigurationRead> {
    return readMachineConfiguration(this.#o.client, signal);
  }

  /**
   * Reports a phase on the node's MachineConfigNode (created by the operator; without one there
   * is nothing to report on). Failures are logged, never fatal, as upstream's.
   */
  async condition(parent: McnCondition, child?: McnCondition): Promise<void> {
    await this.#report(clip(parent), clip(child));
  }

  async #report(parent: McnCondition, child: McnCondition | undefined): Promise<void> {
    const { client, clock, log } = this.#o;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const mcn = await client.get<MachineConfigNode>(Resources.machineConfigNode, this.name);
        const node = this.node();
        const annotations = node?.metadata.annotations ?? {};
        const desiredAnnotation = annotations[Annotation.desiredConfig] ?? '';
        const conditions = nextMcnConditions({
          existing: mcn.status?.conditions,
          parent,
          child,
          desired: mcn.spec.configVersion.desired,
          now: rfc3339(clock.now()),
        });
        if (conditions === undefined) return;
        const compatible = parent.type !== T.UpdatePrepared || parent.status === 'True';
        const desired = compatible && desiredAnnotation !== '' ? desiredAnnotation : 'not-yet-set';
        const current = annotations[Annotation.currentConfig];
        await client.updateStatus<MachineConfigNode>(Resources.machineConfigNode, {
          ...mcn,
          status: {
            ...mcn.status,
            conditions,
            observedGeneration: mcn.metadata.generation ?? 1,
            configVersion: {
              desired,
              ...(current === undefined || current === '' ? {} : { current }),
            },
          },
        });
        return;
      } catch (e) {
        if (isStatusError(e, 'Conflict')) continue;
        if (isStatusError(e, 'NotFound')) {
          log.debug('no MachineConfigNode to report on', {
            node: this.name,
            condition: parent.type,
          });
          return;
        }
        log.warn('could not update the MachineConfigNode', {
          node: this.name,
          condition: parent.type,
          error: errorText(e),
        });
        return;
      }
    }
  }
}

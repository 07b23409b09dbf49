/**
 * The node disruption policies a running node plans with (docs/reference/node-disruption.md §4):
 * MachineConfiguration/cluster `status.nodeDisruptionPolicyStatus.clusterPolicies`, once the
 * operator has observed the object's generation. It is read with a direct GET every poll (5 s)
 * for at most 2 minutes; on the timeout the update fails with upstream's
 * `NodeDisruptionPolicyStatus was not ready: <last error>` and the MachineConfigNode says so.
 *
 * The status is used as fetched: the operator merged the defaults into it, and an empty one makes
 * every file or unit change a Reboot, as upstream. When the object does not exist, or this
 * identity may not read it, there is no status to wait for: the node uses the cluster defaults
 * (the operator's merge of nothing), and says so once per process.
 */
import { MachineConfigNodeConditionType as T } from '../api/machineconfiguration/v1/constants.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import { defaultClusterPolicies } from '../logic/nodeplan/node-disruption-policies.js';
import { knobsFromStatus } from '../logic/nodeplan/plan-knobs.js';
import type { ClusterPolicies } from '../logic/nodeplan/policy-types.js';
import type { ReconcileOverrides } from '../logic/render/reconcile.js';
import type { ClusterNode } from './cluster-node.js';
import { DaemonError } from './daemon-errors.js';

export interface ClusterKnobs {
  readonly policies: ClusterPolicies;
  readonly overrides: ReconcileOverrides;
}

export const DefaultKnobs: ClusterKnobs = { policies: defaultClusterPolicies, overrides: {} };

interface PolicyWait {
  /** How long to wait for MachineConfiguration/cluster to be observed (upstream: 2 min). */
  readonly policiesWaitMs: number;
  readonly policiesPollMs: number;
}

export interface ClusterPoliciesOptions {
  readonly cluster: ClusterNode;
  readonly clock: Clock;
  readonly log: Logger;
  readonly wait: PolicyWait;
  readonly signal?: AbortSignal;
}

const NotCreated = 'MachineConfiguration/cluster has not been created yet';
const NotUpToDate = 'NodeDisruptionPolicyStatus is not up to date';

export class ClusterPoliciesSource {
  readonly #o: ClusterPoliciesOptions;
  /** What was last said about using the defaults: said again only when it changes. */
  #defaultsNotice = '';

  constructor(options: ClusterPoliciesOptions) {
    this.#o = options;
  }

  /** The knobs for an update from `from` to `to` (the names are for the failure message). */
  async read(from: string, to: string): Promise<ClusterKnobs> {
    const { cluster, clock, log, wait, signal } = this.#o;
    const deadline = clock.now() + wait.policiesWaitMs;
    for (;;) {
      const read = await cluster.machineConfiguration(signal);
      let lastError = NotCreated;
      switch (read.kind) {
        case 'absent':
          return this.#defaults(
            'info',
            'MachineConfiguration/cluster does not exist; using the default node disruption policies',
          );
        case 'forbidden':
          return this.#defaults(
            'warn',
            'cannot read MachineConfiguration/cluster; using the default node disruption policies',
            read.message,
          );
        case 'failed':
          log.warn('reading MachineConfiguration/cluster failed', { error: read.message });
          break;
        case 'found': {
          const generation = read.object.metadata.generation ?? 0;
          if (generation === (read.object.status?.observedGeneration ?? 0)) {
            this.#defaultsNotice = '';
            return knobsFromStatus(read.object);
          }
          lastError = NotUpToDate;
          log.warn(`calculating NodeDisruptionPolicies: ${NotUpToDate}`, {
            generation,
            observedGeneration: read.object.status?.observedGeneration,
          });
        }
      }
      if (clock.now() >= deadline) {
        const error = `NodeDisruptionPolicyStatus was not ready: ${lastError}`;
        await cluster.condition({
          type: T.UpdatePrepared,
          status: 'Unknown',
          reason: T.UpdatePrepared,
          message: `Update Failed compatibility validation. MachineConfigs ${from} and ${to} are not available for update. Error calculating post config change actions: ${error}`,
        });
        throw DaemonError.degraded(error);
      }
      await clock.sleep(wait.policiesPollMs, signal);
    }
  }

  #defaults(level: 'info' | 'warn', notice: string, error?: string): ClusterKnobs {
    const said = `${notice} ${error ?? ''}`;
    if (said !== this.#defaultsNotice) {
      if (error === undefined) this.#o.log[level](notice);
      else this.#o.log[level](notice, { error });
    }
    this.#defaultsNotice = said;
    return DefaultKnobs;
  }
}

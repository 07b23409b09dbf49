/**
 * The cluster's release as the dashboard shows it: the version ClusterVersion reports (the last
 * Completed history entry), the release it is moving to while an entry is Partial, the
 * `machine-config` ClusterOperator's version and its Progressing/Degraded messages, and which pools
 * gate the release: the operator reports a release deployed only once every pool labelled
 * required-for-upgrade is Updated at it, and any degraded pool holds it
 * (docs/reference/upgrade.md §10.1, logic/operator/required-pools.ts).
 *
 * A cluster without a cluster-version operator (the box, until `mco upgrade` asks for a release)
 * has no ClusterVersion: that is no error, and the version is the ClusterOperator's.
 */
import type { ClusterOperator } from '../api/config/v1/cluster-operator.js';
import type { ClusterVersion } from '../api/config/v1/cluster-version.js';
import type { ConditionView, PoolView } from './dashboard-snapshot.js';

interface ReleaseView {
  readonly version: string;
  readonly image: string;
  readonly state: string;
  readonly startedTime: string;
  readonly completionTime: string;
}

interface GatingPool {
  readonly pool: string;
  readonly why: string;
}

export interface ClusterView {
  /** Why ClusterVersion or the ClusterOperator could not be read, if one could not. */
  readonly notes: readonly string[];
  readonly version: string;
  /** The release being rolled out (a Partial history entry), if any. */
  readonly inProgress?: ReleaseView;
  readonly history: readonly ReleaseView[];
  /** The `operator` version the machine-config ClusterOperator reports. */
  readonly operatorVersion: string;
  readonly operatorConditions: readonly ConditionView[];
  readonly gating: readonly GatingPool[];
}

export type Read<T> =
  | { readonly kind: 'found'; readonly object: T }
  /** 404: normal for ClusterVersion in a box no upgrade has been asked of yet. */
  | { readonly kind: 'absent'; readonly message: string }
  | { readonly kind: 'unreadable'; readonly message: string };

function gatingPools(pools: readonly PoolView[]): GatingPool[] {
  const out: GatingPool[] = [];
  for (const p of pools) {
    if (p.outcome === 'Degraded') out.push({ pool: p.name, why: `degraded: ${p.message}` });
    else if (!p.requiredForUpgrade) continue;
    else if (p.paused) out.push({ pool: p.name, why: 'required for the upgrade and paused' });
    else if (p.outcome !== 'Done')
      out.push({
        pool: p.name,
        why: `required for the upgrade: ${p.updatedMachineCount} of ${p.machineCount} updated`,
      });
  }
  return out;
}

export function clusterView(
  version: Read<ClusterVersion>,
  operator: Read<ClusterOperator>,
  pools: readonly PoolView[],
): ClusterView {
  const notes: string[] = [];
  const history: ReleaseView[] = [];
  if (version.kind === 'found')
    for (const h of version.object.status?.history ?? [])
      history.push({
        version: h.version,
        image: h.image,
        state: h.state,
        startedTime: h.startedTime,
        completionTime: h.completionTime ?? '',
      });
  else if (version.kind === 'unreadable') notes.push(`ClusterVersion/version: ${version.message}`);
  let operatorVersion = '';
  let operatorConditions: ConditionView[] = [];
  if (operator.kind === 'found') {
    operatorVersion =
      operator.object.status?.versions?.find((v) => v.name === 'operator')?.version ?? '';
    operatorConditions = (operator.object.status?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason ?? '',
      message: c.message ?? '',
      lastTransitionTime: c.lastTransitionTime ?? '',
    }));
  } else notes.push(`ClusterOperator/machine-config: ${operator.message}`);
  // History is newest first, as the cluster-version operator writes it.
  const completed = history.find((h) => h.state === 'Completed');
  const partial = history[0]?.state === 'Partial' ? history[0] : undefined;
  return {
    notes,
    version: completed?.version ?? operatorVersion,
    ...(partial === undefined ? {} : { inProgress: partial }),
    history,
    operatorVersion,
    operatorConditions,
    gating: gatingPools(pools),
  };
}

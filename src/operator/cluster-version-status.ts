/**
 * The part of the cluster-version operator this project plays (docs/reference/upgrade.md §10.1,
 * steps 1 and 7):
 * accepting a desired release into ClusterVersion `status.desired` and `history`, reporting a
 * payload that cannot be loaded, and completing the update once the machine-config
 * ClusterOperator reports the release. The two ConfigMaps the release carries for the MCO are
 * in logic/operator/release-config-maps.ts. Pure: every function maps objects to objects.
 */
import {
  ClusterStatusConditionType,
  type ClusterOperator,
} from '../api/config/v1/cluster-operator.js';
import {
  UpdateState,
  type ClusterVersionStatus,
  type UpdateHistory,
} from '../api/config/v1/cluster-version.js';
import { setStatusCondition } from '../logic/operator/cluster-operator-status.js';

/** The CVO's ClusterVersion condition types used here. */
const ClusterVersionCondition = {
  ReleaseAccepted: 'ReleaseAccepted',
  Progressing: 'Progressing',
  Available: 'Available',
} as const;

/** The CVO keeps at most this many history entries. */
const MaxHistory = 100;

const payloadText = (version: string, image: string): string =>
  `version="${version}" image="${image}" architecture="amd64"`;

/** The desired release is `image`, now accepted: a new Partial history entry at the top. */
export function acceptRelease(
  status: ClusterVersionStatus | undefined,
  release: { readonly image: string; readonly version: string },
  now: string,
): ClusterVersionStatus {
  const entry: UpdateHistory = {
    state: UpdateState.Partial,
    startedTime: now,
    completionTime: null,
    version: release.version,
    image: release.image,
    verified: false,
  };
  let conditions = setStatusCondition(
    status?.conditions,
    {
      type: ClusterVersionCondition.ReleaseAccepted,
      status: 'True',
      reason: 'PayloadLoaded',
      message: `Payload loaded ${payloadText(release.version, release.image)}`,
    },
    now,
  );
  conditions = setStatusCondition(
    conditions,
    {
      type: ClusterVersionCondition.Progressing,
      status: 'True',
      message: `Working towards ${release.version}`,
    },
    now,
  );
  return {
    ...status,
    desired: { version: release.version, image: release.image },
    history: [entry, ...(status?.history ?? [])].slice(0, MaxHistory),
    conditions,
  };
}

/** The desired release could not be loaded (the CVO's RetrievePayload message). */
export function rejectRelease(
  status: ClusterVersionStatus | undefined,
  release: { readonly image: string; readonly version: string },
  failure: string,
  now: string,
): ClusterVersionStatus {
  return {
    ...status,
    conditions: setStatusCondition(
      status?.conditions,
      {
        type: ClusterVersionCondition.ReleaseAccepted,
        status: 'False',
        reason: 'RetrievePayload',
        message: `Retrieving payload failed ${payloadText(release.version, release.image)} failure=${failure}`,
      },
      now,
    ),
  };
}

/** Whether the machine-config ClusterOperator reports `version` and is not Degraded. */
export function operatorReports(co: ClusterOperator | undefined, version: string): boolean {
  const reported = co?.status?.versions?.find((v) => v.name === 'operator')?.version;
  const degraded = co?.status?.conditions?.find(
    (c) => c.type === ClusterStatusConditionType.Degraded,
  );
  return reported === version && degraded?.status !== 'True';
}

/** The top history entry, if it is the desired release still in progress. */
export function pendingEntry(status: ClusterVersionStatus | undefined): UpdateHistory | undefined {
  const top = status?.history?.[0];
  const desired = status?.desired;
  return top !== undefined &&
    top.state === UpdateState.Partial &&
    top.image === desired?.image &&
    top.version === desired.version
    ? top
    : undefined;
}

/** The update to the desired release is done: the history entry is Completed. */
export function completeRelease(status: ClusterVersionStatus, now: string): ClusterVersionStatus {
  const [top, ...rest] = status.history ?? [];
  const version = status.desired?.version ?? '';
  if (top === undefined) return status;
  let conditions = setStatusCondition(
    status.conditions,
    {
      type: ClusterVersionCondition.Progressing,
      status: 'False',
      message: `Cluster version is ${version}`,
    },
    now,
  );
  conditions = setStatusCondition(
    conditions,
    {
      type: ClusterVersionCondition.Available,
      status: 'True',
      message: `Done applying ${version}`,
    },
    now,
  );
  return {
    ...status,
    history: [{ ...top, state: UpdateState.Completed, completionTime: now }, ...rest],
    conditions,
  };
}

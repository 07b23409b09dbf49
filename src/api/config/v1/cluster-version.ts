/**
 * config.openshift.io/v1 ClusterVersion (singleton `version`): the release the cluster runs and is
 * moving to. The operator reads `status.desired` / `history` to know the target release and whether
 * an upgrade is in progress (docs/reference/operator.md §9.2, docs/reference/upgrade.md §10).
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Int64, Nullable, StringEnum } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { ClusterOperatorStatusConditionSchema } from './cluster-operator.js';

export const ClusterVersionName = 'version';

const UpdateSchema = Type.Object({
  architecture: Type.Optional(StringEnum(['Multi', ''])),
  version: Type.Optional(
    Type.String({ description: 'version is a semantic version identifying the update version.' }),
  ),
  image: Type.Optional(
    Type.String({ description: 'image is a container image location that contains the update.' }),
  ),
  force: Type.Optional(Type.Boolean()),
});
export type Update = Static<typeof UpdateSchema>;

const ReleaseSchema = Type.Object({
  version: Type.Optional(Type.String()),
  image: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  channels: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set' })),
});

export const UpdateState = { Completed: 'Completed', Partial: 'Partial' } as const;
export type UpdateState = (typeof UpdateState)[keyof typeof UpdateState];

const UpdateHistorySchema = Type.Object({
  state: Type.String({ description: 'Completed or Partial.' }),
  startedTime: DateTime(),
  completionTime: Nullable(DateTime()),
  version: Type.String(),
  image: Type.String(),
  verified: Type.Boolean(),
  acceptedRisks: Type.Optional(Type.String()),
});
export type UpdateHistory = Static<typeof UpdateHistorySchema>;

const ClusterVersionSpecSchema = Type.Object(
  {
    clusterID: Type.String(),
    desiredUpdate: Type.Optional(UpdateSchema),
    upstream: Type.Optional(Type.String()),
    channel: Type.Optional(Type.String()),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

const ClusterVersionStatusSchema = Type.Object(
  {
    desired: Type.Optional(ReleaseSchema),
    history: Type.Optional(Type.Array(UpdateHistorySchema, { 'x-kubernetes-list-type': 'atomic' })),
    observedGeneration: Type.Optional(Int64()),
    versionHash: Type.Optional(Type.String()),
    conditions: Type.Optional(
      Type.Array(ClusterOperatorStatusConditionSchema, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    availableUpdates: Type.Optional(
      Nullable(Type.Array(ReleaseSchema, { 'x-kubernetes-list-type': 'atomic' })),
    ),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);
export type ClusterVersionStatus = Static<typeof ClusterVersionStatusSchema>;

export const ClusterVersionSchema = kindSchema(
  'ClusterVersion is the configuration for the ClusterVersionOperator. This is where parameters related to automatic updates can be set.',
  {
    spec: ClusterVersionSpecSchema,
    status: Type.Optional(ClusterVersionStatusSchema),
  },
);
export type ClusterVersion = Static<typeof ClusterVersionSchema>;

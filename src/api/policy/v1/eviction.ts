/**
 * policy/v1 Eviction: POSTed to `pods/<name>/eviction` by a drain; the API server deletes the pod
 * unless a PodDisruptionBudget forbids it (429 TooManyRequests).
 */
import { Type } from '@sinclair/typebox';
import { Int64 } from '../../schema.js';
import { ObjectMetaSchema } from '../../meta/v1/object-meta.js';
import { typeMetaProperties } from '../../meta/v1/type-meta.js';

const DeleteOptionsSchema = Type.Object({
  ...typeMetaProperties,
  gracePeriodSeconds: Type.Optional(Int64()),
  preconditions: Type.Optional(
    Type.Object({
      uid: Type.Optional(Type.String()),
      resourceVersion: Type.Optional(Type.String()),
    }),
  ),
  propagationPolicy: Type.Optional(
    Type.String({ description: 'Orphan, Background or Foreground.' }),
  ),
  dryRun: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })),
});

export const EvictionSchema = Type.Object(
  {
    ...typeMetaProperties,
    metadata: ObjectMetaSchema,
    deleteOptions: Type.Optional(DeleteOptionsSchema),
  },
  {
    description:
      'Eviction evicts a pod from its node subject to certain policies and safety constraints.',
  },
);

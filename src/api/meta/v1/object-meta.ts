/**
 * metav1.ObjectMeta: name, identity, versioning, labels/annotations, ownership and finalizers of
 * every stored object. Timestamps are RFC 3339 strings; `resourceVersion` is the storage revision.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Int64, RawObject, StringMap } from '../../schema.js';
import { OwnerReferenceSchema } from './owner-reference.js';

/** One managedFields entry (server-side apply bookkeeping); fieldsV1 is kept as raw JSON. */
const ManagedFieldsEntrySchema = Type.Object({
  manager: Type.Optional(Type.String()),
  operation: Type.Optional(Type.String()),
  apiVersion: Type.Optional(Type.String()),
  time: Type.Optional(DateTime()),
  fieldsType: Type.Optional(Type.String()),
  fieldsV1: Type.Optional(RawObject()),
  subresource: Type.Optional(Type.String()),
});

export const ObjectMetaSchema = Type.Object({
  name: Type.Optional(
    Type.String({
      description:
        'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
    }),
  ),
  generateName: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  generation: Type.Optional(Int64()),
  creationTimestamp: Type.Optional(DateTime()),
  deletionTimestamp: Type.Optional(DateTime()),
  deletionGracePeriodSeconds: Type.Optional(Int64()),
  labels: Type.Optional(StringMap()),
  annotations: Type.Optional(StringMap()),
  ownerReferences: Type.Optional(
    Type.Array(OwnerReferenceSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
    }),
  ),
  finalizers: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set' })),
  managedFields: Type.Optional(
    Type.Array(ManagedFieldsEntrySchema, { 'x-kubernetes-list-type': 'atomic' }),
  ),
});
export type ObjectMeta = Static<typeof ObjectMetaSchema>;

/**
 * metav1.TypeMeta: `apiVersion` and `kind`, inlined at the top of every object and list. The
 * descriptions are the standard Kubernetes ones so `kubectl explain` reads as upstream.
 */
import { Type } from '@sinclair/typebox';

export const ApiVersionDescription =
  'APIVersion defines the versioned schema of this representation of an object.\n' +
  'Servers should convert recognized schemas to the latest internal value, and\n' +
  'may reject unrecognized values.\n' +
  'More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';

export const KindDescription =
  'Kind is a string value representing the REST resource this object represents.\n' +
  'Servers may infer this from the endpoint the client submits requests to.\n' +
  'Cannot be updated.\n' +
  'In CamelCase.\n' +
  'More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** The two TypeMeta properties, to spread into a kind's `Type.Object`. */
export const typeMetaProperties = {
  apiVersion: Type.Optional(Type.String({ description: ApiVersionDescription })),
  kind: Type.Optional(Type.String({ description: KindDescription })),
};

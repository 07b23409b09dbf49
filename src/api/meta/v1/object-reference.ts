/**
 * corev1.ObjectReference: a loose pointer to an object (Event.involvedObject, MachineConfigPool
 * configuration and its sources, ControllerConfig pullSecret).
 */
import { Type, type TProperties } from '@sinclair/typebox';

/** The ObjectReference fields, to spread into types that embed it inline. */
export const objectReferenceProperties = {
  kind: Type.Optional(Type.String({ description: 'Kind of the referent.' })),
  namespace: Type.Optional(Type.String({ description: 'Namespace of the referent.' })),
  name: Type.Optional(Type.String({ description: 'Name of the referent.' })),
  uid: Type.Optional(Type.String({ description: 'UID of the referent.' })),
  apiVersion: Type.Optional(Type.String({ description: 'API version of the referent.' })),
  resourceVersion: Type.Optional(
    Type.String({
      description: 'Specific resourceVersion to which this reference is made, if any.',
    }),
  ),
  fieldPath: Type.Optional(
    Type.String({
      description:
        'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
    }),
  ),
} satisfies TProperties;

export const ObjectReferenceSchema = Type.Object(objectReferenceProperties, {
  'x-kubernetes-map-type': 'atomic',
});

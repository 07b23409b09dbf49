/** core/v1 ServiceAccount: an identity for processes, `system:serviceaccount:<ns>:<name>`. */
import { Type } from '@sinclair/typebox';
import { kindSchema } from '../../meta/v1/kind.js';

const ObjectReference = Type.Object({
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  apiVersion: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
});

export const ServiceAccountSchema = kindSchema(
  'ServiceAccount binds together a name understood by users and a principal that can be authenticated and authorized.',
  {
    secrets: Type.Optional(Type.Array(ObjectReference)),
    imagePullSecrets: Type.Optional(
      Type.Array(Type.Object({ name: Type.Optional(Type.String()) })),
    ),
    automountServiceAccountToken: Type.Optional(Type.Boolean()),
  },
);

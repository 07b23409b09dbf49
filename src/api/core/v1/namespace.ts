/** core/v1 Namespace: namespaced objects may only be created in one that exists. */
import { Type, type Static } from '@sinclair/typebox';
import { kindSchema } from '../../meta/v1/kind.js';

export const NamespaceSchema = kindSchema(
  'Namespace provides a scope for Names.\nUse of multiple namespaces is optional.',
  {
    spec: Type.Optional(
      Type.Object({
        finalizers: Type.Optional(
          Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' }),
        ),
      }),
    ),
    status: Type.Optional(
      Type.Object(
        { phase: Type.Optional(Type.String({ description: 'Active or Terminating.' })) },
        { 'x-kubernetes-preserve-unknown-fields': true },
      ),
    ),
  },
);
export type Namespace = Static<typeof NamespaceSchema>;

/** core/v1 ConfigMap: text `data`, base64 `binaryData`. */
import { Type, type Static } from '@sinclair/typebox';
import { StringMap } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';

export const ConfigMapSchema = kindSchema(
  'ConfigMap holds configuration data for pods to consume.',
  {
    data: Type.Optional(StringMap()),
    binaryData: Type.Optional(StringMap({ description: 'base64-encoded values' })),
    immutable: Type.Optional(Type.Boolean()),
  },
);
export type ConfigMap = Static<typeof ConfigMapSchema>;

/** core/v1 Secret: `data` values are base64; `stringData` is write-only plain text. */
import { Type, type Static } from '@sinclair/typebox';
import { StringMap } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';

export const SecretSchema = kindSchema('Secret holds secret data of a certain type.', {
  data: Type.Optional(StringMap({ description: 'base64-encoded values' })),
  stringData: Type.Optional(StringMap()),
  type: Type.Optional(Type.String()),
  immutable: Type.Optional(Type.Boolean()),
});
export type Secret = Static<typeof SecretSchema>;

/** metav1.ListMeta: the `metadata` of a list (resourceVersion to watch from, paging token). */
import { Type } from '@sinclair/typebox';
import { Int64 } from '../../schema.js';

export const ListMetaSchema = Type.Object({
  resourceVersion: Type.Optional(Type.String()),
  continue: Type.Optional(Type.String()),
  remainingItemCount: Type.Optional(Int64()),
  selfLink: Type.Optional(Type.String()),
});

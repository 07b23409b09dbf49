/**
 * Factories for a kind's top-level schema (TypeMeta + ObjectMeta + the kind's own fields) and for
 * its List, so every kind is declared the same way.
 */
import { Type, type TArray, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { ListMetaSchema } from './list-meta.js';
import { ObjectMetaSchema } from './object-meta.js';
import { typeMetaProperties } from './type-meta.js';

export type KindProperties<P extends TProperties> = typeof typeMetaProperties & {
  metadata: typeof ObjectMetaSchema;
} & P;

/** `{apiVersion?, kind?, metadata, ...props}` with the kind's description. */
export function kindSchema<P extends TProperties>(
  description: string,
  props: P,
): TObject<KindProperties<P>> {
  const properties = {
    ...typeMetaProperties,
    metadata: ObjectMetaSchema,
    ...props,
  } as KindProperties<P>;
  return Type.Object(properties, { description });
}

/** `{apiVersion?, kind?, metadata: ListMeta, items: T[]}`. */
export function listSchema<T extends TSchema>(
  description: string,
  item: T,
): TObject<typeof typeMetaProperties & { metadata: typeof ListMetaSchema; items: TArray<T> }> {
  return Type.Object(
    { ...typeMetaProperties, metadata: ListMetaSchema, items: Type.Array(item) },
    { description },
  );
}

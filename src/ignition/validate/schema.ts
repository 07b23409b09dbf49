/**
 * The Go types of an Ignition spec as the validator reads them: which JSON keys a struct knows, in
 * Go field order (embedded structs flattened, as encoding/json and vcontext see them), and each
 * field's Go type with its Go name, so that decoding fails where json.Unmarshal fails with Go's
 * message, unknown keys warn, and validation walks fields in upstream's order. Derived from the
 * spec's layout (specs/), which holds the same facts once.
 */
import type { FieldType, Scalar, SpecLayout } from '../specs/go-layout.js';

export type GoType =
  | { readonly kind: 'string'; readonly name: string }
  | { readonly kind: 'int' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'ptr'; readonly elem: GoType }
  | { readonly kind: 'list'; readonly elem: GoType; readonly name: string }
  | { readonly kind: 'struct'; readonly struct: string };

interface FieldDef {
  readonly json: string;
  readonly type: GoType;
}

export interface StructDef {
  readonly name: string;
  readonly fields: readonly FieldDef[];
}

export type Schema = ReadonlyMap<string, StructDef>;

const str: GoType = { kind: 'string', name: 'string' };

function scalarType(scalar: Scalar, goName: string | undefined): GoType {
  switch (scalar) {
    case 'string':
      return goName === undefined ? str : { kind: 'string', name: `types.${goName}` };
    case 'int':
      return { kind: 'int' };
    case 'bool':
      return { kind: 'bool' };
  }
}

function goTypeOf(t: FieldType): GoType {
  switch (t.kind) {
    case 'value':
      return scalarType(t.scalar, t.goName);
    case 'pointer':
      return { kind: 'ptr', elem: scalarType(t.scalar, t.goName) };
    case 'struct':
      return { kind: 'struct', struct: t.struct };
    case 'structPointer':
      return { kind: 'ptr', elem: { kind: 'struct', struct: t.struct } };
    case 'list': {
      const elem =
        typeof t.item === 'string'
          ? scalarType(t.item, t.itemGoName)
          : ({ kind: 'struct', struct: t.item.struct } as const);
      const name = t.goName === undefined ? `[]${goTypeName(elem)}` : `types.${t.goName}`;
      return { kind: 'list', elem, name };
    }
  }
}

/** The Go types of a spec, derived from its layout: the same structs, fields and type names. */
export function goSchemaOf(layout: SpecLayout): Schema {
  const defs: [string, StructDef][] = [];
  for (const [name, fields] of layout.structs) {
    defs.push([
      name,
      { name, fields: fields.map((f) => ({ json: f.json, type: goTypeOf(f.type) })) },
    ]);
  }
  return new Map(defs);
}

/** Go's type name in json.Unmarshal messages, after pointers are followed. */
export function goTypeName(t: GoType): string {
  switch (t.kind) {
    case 'string':
    case 'list':
      return t.name;
    case 'int':
      return 'int';
    case 'bool':
      return 'bool';
    case 'ptr':
      return goTypeName(t.elem);
    case 'struct':
      return `types.${t.struct}`;
  }
}

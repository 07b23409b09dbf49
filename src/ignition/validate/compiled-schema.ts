/**
 * A spec's Go types (schema.ts) compiled once for the validator's hot path: fields looked up by
 * map, each struct's Validate rule, its duplicate-key lists and their key spaces resolved up
 * front, and Go's type names precomputed for decode errors.
 */
import { fold } from './decode.js';
import type { Rule } from './rules-v3.js';
import { goTypeName, type GoType, type Schema, type StructDef } from './schema.js';

export type CType =
  | { readonly kind: 'string'; readonly goName: string; readonly rule: Rule | undefined }
  | { readonly kind: 'int'; readonly goName: string }
  | { readonly kind: 'bool'; readonly goName: string }
  | { readonly kind: 'ptr'; readonly goName: string; readonly elem: CType }
  | {
      readonly kind: 'list';
      readonly goName: string;
      readonly elem: CType;
      /** The Go type name entryKey() uses for the items ('' for plain strings). */
      readonly keyType: string;
    }
  | { readonly kind: 'struct'; readonly goName: string; readonly def: CStruct };

interface CField {
  readonly json: string;
  readonly type: CType;
}

/** A list field whose entries must be unique within `space` (MergedKeys share one space). */
interface DupField {
  readonly json: string;
  readonly space: number;
  /** Another list shares the space, so a single entry can still collide. */
  readonly shared: boolean;
  readonly keyType: string;
}

export interface CStruct {
  readonly name: string;
  readonly fields: readonly CField[];
  /** The fields a walk descends into: structs, pointers to structs, lists of those or of ruled strings. */
  readonly walk: readonly CField[];
  readonly exact: ReadonlyMap<string, CField>;
  /** By folded name (see fold()), for keys Go matches case-insensitively. */
  readonly folded: ReadonlyMap<string, CField>;
  readonly rule: Rule | undefined;
  readonly dups: readonly DupField[];
  readonly spaceCount: number;
  /**
   * Walking the zero value emits nothing, so an absent value can be skipped. Filled in by the
   * validator after compiling, because it takes a dry run of the rules.
   */
  zeroSilent: boolean;
}

export interface CompileOptions {
  /** Rules by Go type name (structs and named string types). */
  readonly rules: Readonly<Record<string, Rule>>;
  /** IgnoreDuplicates(): list fields whose entries may repeat, by struct. */
  readonly ignoreDuplicates: Readonly<Record<string, readonly string[]>>;
  /** MergedKeys(): list fields that share one key space, by struct. */
  readonly mergedKeys: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

function keyTypeOf(t: GoType): string {
  if (t.kind === 'struct') return t.struct;
  if (t.kind === 'string' && t.name.startsWith('types.')) return t.name.slice('types.'.length);
  return '';
}

function descends(t: CType): boolean {
  switch (t.kind) {
    case 'struct':
      return true;
    case 'ptr':
      return t.elem.kind === 'struct';
    case 'list':
      return t.elem.kind === 'struct' || (t.elem.kind === 'string' && t.elem.rule !== undefined);
    case 'string':
    case 'int':
    case 'bool':
      return false;
  }
}

export function compileSchema(schema: Schema, options: CompileOptions): CStruct {
  const shells = new Map<string, CStruct>();
  const structOf = (name: string): CStruct => {
    const existing = shells.get(name);
    if (existing !== undefined) return existing;
    const def = schema.get(name);
    if (def === undefined) throw new Error(`ignition schema: no struct ${name}`);
    return compileStruct(def);
  };

  const typeOf = (t: GoType): CType => {
    const goName = goTypeName(t);
    switch (t.kind) {
      case 'string':
        return { kind: 'string', goName, rule: options.rules[keyTypeOf(t)] };
      case 'int':
        return { kind: 'int', goName };
      case 'bool':
        return { kind: 'bool', goName };
      case 'ptr':
        return { kind: 'ptr', goName, elem: typeOf(t.elem) };
      case 'list':
        return { kind: 'list', goName, elem: typeOf(t.elem), keyType: keyTypeOf(t.elem) };
      case 'struct':
        return { kind: 'struct', goName, def: structOf(t.struct) };
    }
  };

  function compileStruct(def: StructDef): CStruct {
    const fields: CField[] = [];
    const walk: CField[] = [];
    const ignored = options.ignoreDuplicates[def.name] ?? [];
    const merged = options.mergedKeys[def.name] ?? {};
    const spaces: string[] = [];
    const dups: DupField[] = [];
    const out: CStruct = {
      name: def.name,
      fields,
      walk,
      exact: new Map(),
      folded: new Map(),
      rule: options.rules[def.name],
      dups,
      spaceCount: 0,
      zeroSilent: false,
    };
    shells.set(def.name, out);
    const exact = out.exact as Map<string, CField>;
    const folded = out.folded as Map<string, CField>;
    for (const f of def.fields) {
      const field: CField = { json: f.json, type: typeOf(f.type) };
      fields.push(field);
      if (descends(field.type)) walk.push(field);
      exact.set(f.json, field);
      const key = fold(f.json);
      if (!folded.has(key)) folded.set(key, field);
      if (f.type.kind !== 'list' || ignored.includes(f.json)) continue;
      const spaceName = merged[f.json] ?? f.json;
      let space = spaces.indexOf(spaceName);
      if (space < 0) space = spaces.push(spaceName) - 1;
      dups.push({
        json: f.json,
        space,
        shared: Object.values(merged).filter((m) => m === spaceName).length > 1,
        keyType: keyTypeOf(f.type.elem),
      });
    }
    return Object.assign(out, { spaceCount: spaces.length });
  }

  return structOf('Config');
}

/** Every struct reachable from `root`, each once. */
export function structsOf(root: CStruct): CStruct[] {
  const seen = new Set<CStruct>();
  const visit = (d: CStruct): void => {
    if (seen.has(d)) return;
    seen.add(d);
    for (const f of d.fields) {
      let t = f.type;
      while (t.kind === 'ptr' || t.kind === 'list') t = t.elem;
      if (t.kind === 'struct') visit(t.def);
    }
  };
  visit(root);
  return [...seen];
}

/**
 * structured-merge-diff's operations on an object typed by its kind's schema: the field set an
 * applied configuration names, the comparison of two versions (added, modified, removed paths),
 * the merge of a configuration into the live object, and the removal of paths. What a node is
 * follows the schema: `x-kubernetes-list-type` `atomic` (the default for lists), `set` (`v:`
 * elements) or `map` keyed by `x-kubernetes-list-map-keys` (`k:` elements); built-in kinds' lists
 * take their `patchStrategy`/`patchMergeKey` (strategic-merge-keys.ts) as upstream's schema
 * conversion does; `x-kubernetes-map-type: atomic` maps and atomic lists are leaves; where the
 * schema says nothing (`x-kubernetes-preserve-unknown-fields`) the type is deduced from the value:
 * maps are granular, lists atomic. metadata is typed by ObjectMeta for every kind.
 */
import { ObjectMetaSchema } from '../../api/meta/v1/object-meta.js';
import { plainJson } from '../../api/schema.js';
import type { ResourceType } from '../resource-type.js';
import { FieldSet } from './field-set.js';
import { cloneJson, isJsonMap, type JsonMap } from './json.js';
import { jsonEqual } from '../../lib/json-equal.js';
import { listStrategy } from './strategic-merge-keys.js';

const ObjectMeta = plainJson(ObjectMetaSchema) as JsonMap;

/** Where in a kind's schema a value sits; `schema` undefined means "deduce from the value". */
export interface TypeRef {
  readonly rt: ResourceType;
  readonly schema: JsonMap | undefined;
  /** Map keys from the root, list elements not counted (how strategic merge keys are named). */
  readonly fieldPath: readonly string[];
}

type Resolved =
  | { readonly kind: 'leaf' }
  | { readonly kind: 'map'; readonly ref: TypeRef }
  | { readonly kind: 'list'; readonly ref: TypeRef; readonly keys: readonly string[] | 'set' };

export function rootType(rt: ResourceType): TypeRef {
  return { rt, schema: rt.schema, fieldPath: [] };
}

function resolveList(ref: TypeRef): Resolved {
  const s = ref.schema;
  if (s === undefined || s['type'] !== 'array') return { kind: 'leaf' };
  const type = s['x-kubernetes-list-type'];
  if (type === 'set') return { kind: 'list', ref, keys: 'set' };
  if (type === 'map') {
    const keys = s['x-kubernetes-list-map-keys'];
    return { kind: 'list', ref, keys: Array.isArray(keys) ? keys.map(String) : [] };
  }
  if (type !== undefined) return { kind: 'leaf' };
  const path = ref.fieldPath.join('.');
  // ObjectMeta's list types, for every kind
  if (path === 'metadata.finalizers') return { kind: 'list', ref, keys: 'set' };
  if (path === 'metadata.ownerReferences') return { kind: 'list', ref, keys: ['uid'] };
  const strategy = ref.rt.builtIn ? listStrategy(ref.rt, ref.fieldPath) : undefined;
  if (strategy === undefined) return { kind: 'leaf' };
  return { kind: 'list', ref, keys: 'set' in strategy ? 'set' : [strategy.mergeKey] };
}

function resolve(ref: TypeRef, value: unknown): Resolved {
  if (Array.isArray(value)) return resolveList(ref);
  if (!isJsonMap(value)) return { kind: 'leaf' };
  const s = ref.schema;
  if (s === undefined) return { kind: 'map', ref };
  const atomic =
    s['x-kubernetes-map-type'] === 'atomic' ||
    s['x-kubernetes-int-or-string'] === true ||
    (s['type'] !== undefined && s['type'] !== 'object');
  return atomic ? { kind: 'leaf' } : { kind: 'map', ref };
}

/** The type of field `key` of a map; `declared` when the schema names it. */
function fieldType(ref: TypeRef, key: string): { ref: TypeRef; declared: boolean } {
  const fieldPath = [...ref.fieldPath, key];
  if (ref.fieldPath.length === 0 && key === 'metadata')
    return { ref: { rt: ref.rt, schema: ObjectMeta, fieldPath }, declared: true };
  const s = ref.schema;
  const properties = s !== undefined && isJsonMap(s['properties']) ? s['properties'] : undefined;
  const declared = properties?.[key];
  if (isJsonMap(declared))
    return { ref: { rt: ref.rt, schema: declared, fieldPath }, declared: true };
  if (ref.fieldPath.length === 0 && (key === 'apiVersion' || key === 'kind'))
    return { ref: { rt: ref.rt, schema: { type: 'string' }, fieldPath }, declared: true };
  const additional = s?.['additionalProperties'];
  return {
    ref: { rt: ref.rt, schema: isJsonMap(additional) ? additional : undefined, fieldPath },
    declared: false,
  };
}

function elementType(ref: TypeRef): TypeRef {
  const items = ref.schema?.['items'];
  return { rt: ref.rt, schema: isJsonMap(items) ? items : undefined, fieldPath: ref.fieldPath };
}

/** The path element of a list item: `k:{…}` by its key fields, `v:…` for sets, else `i:N`. */
function itemElement(keys: readonly string[] | 'set', item: unknown, index: number): string {
  if (keys === 'set') return `v:${JSON.stringify(item)}`;
  if (!isJsonMap(item)) return `i:${index}`;
  const key: JsonMap = {};
  for (const k of [...keys].sort()) if (item[k] !== undefined) key[k] = item[k];
  return Object.keys(key).length === 0 ? `i:${index}` : `k:${JSON.stringify(key)}`;
}

function indexItems(
  keys: readonly string[] | 'set',
  list: readonly unknown[],
): Map<string, unknown> {
  const out = new Map<string, unknown>();
  list.forEach((item, i) => {
    const pe = itemElement(keys, item, i);
    if (!out.has(pe)) out.set(pe, item);
  });
  return out;
}

/** The paths an applied configuration sets (upstream's ToFieldSet). */
export function toFieldSet(
  ref: TypeRef,
  value: unknown,
  path: string[] = [],
  set = new FieldSet(),
): FieldSet {
  const t = resolve(ref, value);
  if (t.kind === 'leaf') {
    set.insert(path);
  } else if (t.kind === 'list') {
    const element = elementType(ref);
    for (const [pe, item] of indexItems(t.keys, value as unknown[])) {
      toFieldSet(element, item, [...path, pe], set);
      set.insert([...path, pe]);
    }
  } else {
    for (const [key, v] of Object.entries(value as JsonMap)) {
      const child = fieldType(ref, key);
      const childPath = [...path, `f:${key}`];
      toFieldSet(child.ref, v, childPath, set);
      if (v === null || (isJsonMap(v) && Object.keys(v).length === 0) || !child.declared)
        set.insert(childPath);
    }
  }
  return set;
}

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

const emptyValue = (v: unknown): boolean =>
  v === undefined ||
  (isJsonMap(v) && Object.keys(v).length === 0) ||
  (Array.isArray(v) && v.length === 0);

/** What changed from `lhs` to `rhs` (upstream's Compare). */
export function compare(ref: TypeRef, lhs: unknown, rhs: unknown): Comparison {
  const cmp: Comparison = {
    added: new FieldSet(),
    modified: new FieldSet(),
    removed: new FieldSet(),
  };
  compareAt({ ref, lhs, rhs, path: [], cmp });
  return cmp;
}

function compareLeaf(lhs: unknown, rhs: unknown, path: string[], cmp: Comparison): void {
  if (lhs === undefined) cmp.added.insert(path);
  else if (rhs === undefined) cmp.removed.insert(path);
  else if (!jsonEqual(lhs, rhs)) cmp.modified.insert(path);
}

function compareAt({
  ref,
  lhs,
  rhs,
  path,
  cmp,
}: {
  readonly ref: TypeRef;
  readonly lhs: unknown;
  readonly rhs: unknown;
  readonly path: string[];
  readonly cmp: Comparison;
}): void {
  const tl = lhs === undefined ? undefined : resolve(ref, lhs);
  const tr = rhs === undefined ? undefined : resolve(ref, rhs);
  const t = tr ?? tl;
  const sameKind = tl === undefined || tr === undefined || tl.kind === tr.kind;
  if (t === undefined) return;
  if (t.kind === 'leaf' || !sameKind || (emptyValue(lhs) && emptyValue(rhs))) {
    compareLeaf(lhs, rhs, path, cmp);
    return;
  }
  if (t.kind === 'map') {
    const l = isJsonMap(lhs) ? lhs : {};
    const r = isJsonMap(rhs) ? rhs : {};
    for (const key of new Set([...Object.keys(l), ...Object.keys(r)])) {
      compareAt({
        ref: fieldType(ref, key).ref,
        lhs: l[key],
        rhs: r[key],
        path: [...path, `f:${key}`],
        cmp,
      });
    }
  } else {
    const element = elementType(ref);
    const l = indexItems(t.keys, Array.isArray(lhs) ? lhs : []);
    const r = indexItems(t.keys, Array.isArray(rhs) ? rhs : []);
    for (const pe of new Set([...l.keys(), ...r.keys()])) {
      compareAt({ ref: element, lhs: l.get(pe), rhs: r.get(pe), path: [...path, pe], cmp });
    }
  }
  if (lhs === undefined) cmp.added.insert(path);
  else if (rhs === undefined) cmp.removed.insert(path);
}

/** `config` merged into `live` (upstream's Merge): configuration wins at leaves; null removes. */
export function merge(ref: TypeRef, live: unknown, config: unknown): unknown {
  if (config === undefined) return cloneJson(live);
  if (live === undefined || config === null) return cloneJson(config);
  const tl = resolve(ref, live);
  const tc = resolve(ref, config);
  if (tc.kind === 'leaf' || tl.kind !== tc.kind) return cloneJson(config);
  if (tc.kind === 'map') {
    const l = live as JsonMap;
    const c = config as JsonMap;
    const out: JsonMap = {};
    for (const key of new Set([...Object.keys(l), ...Object.keys(c)])) {
      const merged = merge(fieldType(ref, key).ref, l[key], c[key]);
      if (merged !== undefined && merged !== null) out[key] = merged;
    }
    return out;
  }
  return mergeList(elementType(ref), tc.keys, live as unknown[], config as unknown[]);
}

/**
 * Associative lists keep the live order, with the configuration's items merged in place and its
 * new items placed where the configuration's order puts them (upstream's mergingWalker).
 */
function mergeList(
  element: TypeRef,
  keys: readonly string[] | 'set',
  live: unknown[],
  config: unknown[],
): unknown[] {
  const lpes = live.map((item, i) => itemElement(keys, item, i));
  const rpes = config.map((item, i) => itemElement(keys, item, i));
  const lmap = indexItems(keys, live);
  const rmap = indexItems(keys, config);
  const shared = rpes.filter((pe) => lmap.has(pe));
  let nextShared = shared.shift();
  const mergedRhs = new Set<string>();
  const out: unknown[] = [];
  const push = (pe: string, l: unknown, r: unknown): void => {
    const merged = merge(element, l, r);
    if (merged !== undefined) out.push(merged);
  };
  for (let li = 0, ri = 0; li < lpes.length || ri < rpes.length;) {
    const lpe = lpes[li];
    const rpe = rpes[ri];
    if (lpe !== undefined && rpe !== undefined) {
      if (lpe === rpe) {
        mergedRhs.add(lpe);
        push(lpe, lmap.get(lpe), rmap.get(rpe));
        li++;
        ri++;
        nextShared = shared.shift();
        continue;
      }
      if (rmap.has(lpe) && nextShared !== undefined && nextShared !== lpe) {
        li++;
        continue;
      }
    }
    if (lpe !== undefined) {
      if (!rmap.has(lpe)) {
        push(lpe, live[li], undefined);
        li++;
        continue;
      } else if (mergedRhs.has(lpe)) {
        li++;
      }
    }
    if (rpe !== undefined) {
      mergedRhs.add(rpe);
      push(rpe, lmap.get(rpe), rmap.get(rpe));
      ri++;
      if (nextShared === rpe) nextShared = shared.shift();
    }
  }
  return out;
}

/** `value` without the members of `set` (a removed map or list item goes with all it holds). */
export function removePaths(ref: TypeRef, value: unknown, set: FieldSet): unknown {
  const t = resolve(ref, value);
  if (t.kind === 'map') {
    const out: JsonMap = {};
    for (const [key, v] of Object.entries(value as JsonMap)) {
      const pe = `f:${key}`;
      if (set.members.has(pe)) continue;
      const sub = set.children.get(pe);
      out[key] = sub === undefined ? cloneJson(v) : removePaths(fieldType(ref, key).ref, v, sub);
    }
    return out;
  }
  if (t.kind === 'list') {
    const element = elementType(ref);
    const out: unknown[] = [];
    (value as unknown[]).forEach((item, i) => {
      const pe = itemElement(t.keys, item, i);
      if (set.members.has(pe)) return;
      const sub = set.children.get(pe);
      out.push(sub === undefined ? cloneJson(item) : removePaths(element, item, sub));
    });
    return out;
  }
  return cloneJson(value);
}

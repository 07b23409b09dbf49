/**
 * Ignition 3 config merge, with the exact semantics of coreos/ignition `config/merge/merge.go`
 * (what MCO's `MergeMachineConfigs` calls for every MachineConfig after the first):
 *
 * - non-pointer scalars: the child's value replaces the parent's (even when zero);
 * - pointers: the child's value replaces the parent's only when the child sets it;
 * - structs merge field by field;
 * - keyed lists: a parent entry whose key the child also has is merged with the child's entry in
 *   the parent's position; if the child has that key in another list of the same key-space
 *   (files/directories/links by path, kernelArguments shouldExist/shouldNotExist) the parent
 *   entry is dropped; child entries whose key the parent list lacks are appended;
 * - lists of strings are keyed by value (union: parent items, then new child items);
 * - `files[].append`, filesystem/LUKS/RAID `options`, filesystem `mountOptions` concatenate.
 */
import type { IgnitionConfig, JsonRecord, Scalar } from './types.js';
import { isRecord } from './types.js';
import { layoutFields } from './specs/go-layout.js';
import { IgnitionSpecs } from './specs/ignition-specs.js';
import { InternalSpecVersion } from './versions.js';

/** Configs merge in the internal spec. */
const LAYOUT = IgnitionSpecs.layout(InternalSpecVersion);

/** The field whose value is a list item's `Key()`. */
const KEY_FIELD: Readonly<Record<string, string>> = {
  Directory: 'path',
  File: 'path',
  Link: 'path',
  Disk: 'device',
  Filesystem: 'device',
  Luks: 'name',
  Raid: 'name',
  PasswdUser: 'name',
  PasswdGroup: 'name',
  Unit: 'name',
  Dropin: 'name',
  Resource: 'source',
  HTTPHeader: 'name',
  Tang: 'url',
};

/** `IgnoreDuplicates()`: lists that are concatenated rather than merged by key. */
const IGNORE_DUPLICATES: Readonly<Record<string, readonly string[]>> = {
  File: ['append'],
  Filesystem: ['options', 'mountOptions'],
  Luks: ['options'],
  Raid: ['options'],
};

/** `MergedKeys()`: lists of one struct that share a key-space. */
const MERGED_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Storage: { directories: 'Node', files: 'Node', links: 'Node' },
  KernelArguments: { shouldExist: 'KernelArgument', shouldNotExist: 'KernelArgument' },
};

/**
 * Merges `child` into `parent` (both of the internal spec, canonical form). Neither input is modified and
 * the result shares no objects with them. The result carries the child's `ignition.version`.
 */
export function mergeIgnition(parent: IgnitionConfig, child: IgnitionConfig): IgnitionConfig {
  return mergeStruct('Config', asRecord(parent), asRecord(child)) as unknown as IgnitionConfig;
}

function asRecord(v: unknown): JsonRecord {
  return isRecord(v) ? v : {};
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

function partitionKey(p: JsonRecord): string {
  const num = p['number'];
  if (typeof num === 'number' && num !== 0) return `number:${String(num)}`;
  const label = p['label'];
  return typeof label === 'string' ? `label:${label}` : '';
}

function keyOf(item: unknown, struct: string | undefined): string {
  if (struct === undefined) return typeof item === 'string' ? item : String(item);
  const rec = asRecord(item);
  if (struct === 'Partition') return partitionKey(rec);
  const field = KEY_FIELD[struct];
  const key = field === undefined ? undefined : rec[field];
  return typeof key === 'string' ? key : '';
}

interface ChildEntry {
  readonly list: string;
  readonly item: unknown;
}

/** The structs that have keyed lists (the others need no index). */
const LIST_STRUCTS: ReadonlySet<string> = new Set(
  [...LAYOUT.structs]
    .filter(([name, fields]) =>
      fields.some(
        (f) => f.type.kind === 'list' && !(IGNORE_DUPLICATES[name] ?? []).includes(f.json),
      ),
    )
    .map(([name]) => name),
);

/** Go's `structInfo` lookup: key-space handle → key → the child's entry; the last one wins. */
type ChildIndex = ReadonlyMap<string, ReadonlyMap<string, ChildEntry>>;

const NO_CHILD_LISTS: ChildIndex = new Map();

function indexChildLists(struct: string, child: JsonRecord): ChildIndex {
  if (!LIST_STRUCTS.has(struct)) return NO_CHILD_LISTS;
  const index = new Map<string, Map<string, ChildEntry>>();
  const ignored = IGNORE_DUPLICATES[struct] ?? [];
  for (const f of layoutFields(LAYOUT, struct)) {
    if (f.type.kind !== 'list' || ignored.includes(f.json)) continue;
    const items = child[f.json];
    if (!Array.isArray(items) || items.length === 0) continue;
    const itemStruct = typeof f.type.item === 'string' ? undefined : f.type.item.struct;
    const handle = MERGED_KEYS[struct]?.[f.json] ?? f.json;
    let keys = index.get(handle);
    if (keys === undefined) {
      keys = new Map<string, ChildEntry>();
      index.set(handle, keys);
    }
    for (const item of items) keys.set(keyOf(item, itemStruct), { list: f.json, item });
  }
  return index;
}

function mergeStruct(struct: string, parent: JsonRecord, child: JsonRecord): JsonRecord {
  const out: JsonRecord = {};
  const childIndex = indexChildLists(struct, child);
  for (const f of layoutFields(LAYOUT, struct)) {
    const p = parent[f.json];
    const c = child[f.json];
    switch (f.type.kind) {
      case 'value':
        if (c !== undefined) out[f.json] = c;
        break;
      case 'pointer':
      case 'structPointer':
        if (c !== undefined) out[f.json] = clone(c);
        else if (p !== undefined) out[f.json] = clone(p);
        break;
      case 'struct': {
        const merged = mergeStruct(f.type.struct, asRecord(p), asRecord(c));
        if (!f.omitEmpty || Object.keys(merged).length > 0) out[f.json] = merged;
        break;
      }
      case 'list': {
        const itemStruct = typeof f.type.item === 'string' ? undefined : f.type.item.struct;
        const merged = (IGNORE_DUPLICATES[struct] ?? []).includes(f.json)
          ? [...asList(p), ...asList(c)].map(clone)
          : mergeKeyedList({
              struct,
              field: f.json,
              itemStruct,
              parent: asList(p),
              child: asList(c),
              childIndex,
            });
        if (merged.length > 0) out[f.json] = merged;
        break;
      }
    }
  }
  return out;
}

function asList(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

function mergeKeyedList({
  struct,
  field,
  itemStruct,
  parent,
  child,
  childIndex,
}: {
  readonly struct: string;
  readonly field: string;
  readonly itemStruct: string | undefined;
  readonly parent: readonly unknown[];
  readonly child: readonly unknown[];
  readonly childIndex: ChildIndex;
}): unknown[] {
  const childKeys = childIndex.get(MERGED_KEYS[struct]?.[field] ?? field);
  const result: unknown[] = [];
  for (const parentItem of parent) {
    const hit = childKeys?.get(keyOf(parentItem, itemStruct));
    if (hit === undefined) {
      result.push(clone(parentItem));
    } else if (hit.list === field) {
      if (itemStruct === undefined) {
        result.push(hit.item);
      } else if (!(field === 'httpHeaders' && asRecord(hit.item)['value'] === undefined)) {
        // A child header without a value removes the parent's header.
        result.push(mergeStruct(itemStruct, asRecord(parentItem), asRecord(hit.item)));
      }
    }
    // else: the child has this key in another list of the key-space, which replaces it.
  }
  const parentKeys = new Set(parent.map((i) => keyOf(i, itemStruct)));
  for (const childItem of child) {
    if (!parentKeys.has(keyOf(childItem, itemStruct))) result.push(clone(childItem));
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// N-ary merge

/**
 * `children.reduce(mergeIgnition, base)` for inputs in canonical form, in time linear in their
 * total size. The fold rebuilds and clones the whole, growing parent at every step, which is
 * quadratic for a pool of many MachineConfigs. Here one accumulator is updated in place, copying
 * an object only when it is about to change (copy-on-write), and each keyed list keeps a
 * key → positions index, so a child only pays for its own entries.
 *
 * The result equals the fold's (`toEqual`; object key order may differ, which means nothing:
 * serialization writes Go's field order). The inputs are never modified, but the result shares
 * the parts nothing changed with them: copy it before changing it.
 */
export function mergeIgnitionAll(
  base: IgnitionConfig,
  children: readonly IgnitionConfig[],
): IgnitionConfig {
  if (children.length === 0) return base;
  const acc: Accumulator = { owned: new Set(), positions: new Map() };
  const root = own(acc, asRecord(base));
  for (const child of children) mergeInto(acc, 'Config', root, asRecord(child));
  return root as unknown as IgnitionConfig;
}

interface Accumulator {
  /** Objects and arrays the accumulator created, which it may change in place. */
  readonly owned: Set<object>;
  /** For each keyed list of the accumulator: where each key sits. */
  readonly positions: Map<readonly unknown[], Positions>;
}

/** `rec` itself if the accumulator owns it, else an owned shallow copy. */
function own(acc: Accumulator, rec: JsonRecord): JsonRecord {
  if (acc.owned.has(rec)) return rec;
  const copy = { ...rec };
  acc.owned.add(copy);
  return copy;
}

function newOwned(acc: Accumulator): JsonRecord {
  const rec = {};
  acc.owned.add(rec);
  return rec;
}

/** `mergeStruct(struct, target, child)`, written into `target` (owned by the accumulator). */
function mergeInto(acc: Accumulator, struct: string, target: JsonRecord, child: JsonRecord): void {
  const childIndex = indexChildLists(struct, child);
  for (const f of layoutFields(LAYOUT, struct)) {
    const c = child[f.json];
    const p = target[f.json];
    // Nothing merged into nothing stays nothing (every omitempty struct or list of 3.5 merges
    // to empty then). Most children leave most sections out: this skips them cheaply.
    if (c === undefined && p === undefined && f.omitEmpty) continue;
    switch (f.type.kind) {
      case 'value':
        setOrDelete(target, f.json, c);
        break;
      case 'pointer':
      case 'structPointer':
        // Replaced whole, never changed in place: the child's value can be shared.
        if (c !== undefined) target[f.json] = c;
        break;
      case 'struct': {
        const inner = isRecord(p) ? own(acc, p) : newOwned(acc);
        mergeInto(acc, f.type.struct, inner, asRecord(c));
        const keep = !f.omitEmpty || Object.keys(inner).length > 0;
        setOrDelete(target, f.json, keep ? inner : undefined);
        break;
      }
      case 'list': {
        const list = mergeListField({
          acc,
          struct,
          field: f.json,
          item: f.type.item,
          parent: p,
          child: {
            items: c,
            index: childIndex,
          },
        });
        setOrDelete(target, f.json, list.length > 0 ? list : undefined);
        break;
      }
    }
  }
}

function setOrDelete(rec: JsonRecord, key: string, value: unknown): void {
  if (value === undefined) Reflect.deleteProperty(rec, key);
  else rec[key] = value;
}

/** The merged list for one list field; the parent's own array when nothing changes. */
function mergeListField({
  acc,
  struct,
  field,
  item,
  parent,
  child,
}: {
  readonly acc: Accumulator;
  readonly struct: string;
  readonly field: string;
  readonly item: Scalar | { readonly struct: string };
  readonly parent: unknown;
  readonly child: { readonly items: unknown; readonly index: ChildIndex };
}): readonly unknown[] {
  const parentItems = asList(parent);
  const childItems = asList(child.items);
  if ((IGNORE_DUPLICATES[struct] ?? []).includes(field)) {
    if (childItems.length === 0) return parentItems;
    const items = ownList(acc, parentItems);
    for (const x of childItems) items.push(x);
    return items;
  }
  const childKeys = child.index.get(MERGED_KEYS[struct]?.[field] ?? field);
  if (childKeys === undefined) return parentItems; // the child names no key of this key-space
  const itemStruct = typeof item === 'string' ? undefined : item.struct;
  const list: AccList = { acc, field, itemStruct, items: ownList(acc, parentItems) };
  mergeListInto(list, childItems, childKeys);
  return list.items;
}

/** `list` itself if owned (its index stays valid), else an owned copy (indexed when first used). */
function ownList(acc: Accumulator, list: readonly unknown[]): unknown[] {
  if (acc.owned.has(list)) return list as unknown[];
  const copy = [...list];
  acc.owned.add(copy);
  return copy;
}

interface AccList {
  readonly acc: Accumulator;
  readonly field: string;
  readonly itemStruct: string | undefined;
  /** Owned by the accumulator, changed in place. */
  readonly items: unknown[];
}

/**
 * `mergeKeyedList` in place: only the keys the child names in this list's key-space are looked
 * at, so the cost does not grow with the accumulated list.
 */
function mergeListInto(
  list: AccList,
  childItems: readonly unknown[],
  childKeys: ReadonlyMap<string, ChildEntry>,
): void {
  const { acc, field, itemStruct, items } = list;
  const at = positionsOf(list);
  const removed: number[] = [];
  childKeys.forEach((hit, key) => {
    for (const i of positionsAt(at, key)) {
      if (hit.list !== field) {
        removed.push(i); // the child has the key in another list of the key-space
      } else if (itemStruct === undefined) {
        items[i] = hit.item;
      } else if (field === 'httpHeaders' && asRecord(hit.item)['value'] === undefined) {
        removed.push(i); // a child header without a value removes the parent's header
      } else {
        const target = own(acc, asRecord(items[i]));
        items[i] = target;
        mergeInto(acc, itemStruct, target, asRecord(hit.item));
      }
    }
  });
  // As in the fold: every child item whose key the list held before this merge is not added
  // (even one whose parent entry was just removed); the others all are, duplicates included.
  const added = childItems.filter((item) => !at.has(keyOf(item, itemStruct)));
  if (removed.length > 0) removeAt(list, new Set(removed));
  for (const item of added) {
    addPosition(at, keyOf(item, itemStruct), items.length);
    items.push(item);
  }
}

function positionsOf(list: AccList): Positions {
  let at = list.acc.positions.get(list.items);
  if (at === undefined) {
    at = new Map();
    list.acc.positions.set(list.items, at);
    reindex(list, at);
  }
  return at;
}

function reindex(list: AccList, at: Positions): void {
  at.clear();
  list.items.forEach((item, i) => {
    addPosition(at, keyOf(item, list.itemStruct), i);
  });
}

/**
 * Key → the index holding it, or the indexes when a key is held more than once (rare: only a
 * config listing a key twice does that). A number per key spares ten thousands of small arrays.
 */
type Positions = Map<string, number | number[]>;

function addPosition(at: Positions, key: string, i: number): void {
  const known = at.get(key);
  if (known === undefined) at.set(key, i);
  else if (typeof known === 'number') at.set(key, [known, i]);
  else known.push(i);
}

const NONE: readonly number[] = [];

function positionsAt(at: Positions, key: string): readonly number[] {
  const known = at.get(key);
  if (known === undefined) return NONE;
  return typeof known === 'number' ? [known] : known;
}

/** Removals are rare (a file replacing a directory, say): compact the list and re-index it. */
function removeAt(list: AccList, removed: ReadonlySet<number>): void {
  let n = 0;
  list.items.forEach((item, i) => {
    if (!removed.has(i)) list.items[n++] = item;
  });
  list.items.length = n;
  reindex(list, positionsOf(list));
}

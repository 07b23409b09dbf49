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
import type { IgnitionConfig, JsonRecord } from './types.js';
import { isRecord, structFields } from './types.js';

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
 * Merges `child` into `parent` (both spec 3.5, canonical form). Neither input is modified and
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

/** Go's `structInfo` lookup: (key-space handle, key) → the child's entry; the last one wins. */
function indexChildLists(struct: string, child: JsonRecord): Map<string, ChildEntry> {
  const index = new Map<string, ChildEntry>();
  const ignored = IGNORE_DUPLICATES[struct] ?? [];
  for (const f of structFields('3.5.0', struct)) {
    if (f.type.kind !== 'list' || ignored.includes(f.json)) continue;
    const itemStruct = typeof f.type.item === 'string' ? undefined : f.type.item.struct;
    const handle = MERGED_KEYS[struct]?.[f.json] ?? f.json;
    const items = child[f.json];
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      index.set(`${handle}\u0000${keyOf(item, itemStruct)}`, { list: f.json, item });
    }
  }
  return index;
}

function mergeStruct(struct: string, parent: JsonRecord, child: JsonRecord): JsonRecord {
  const out: JsonRecord = {};
  const childIndex = indexChildLists(struct, child);
  for (const f of structFields('3.5.0', struct)) {
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
          : mergeKeyedList(struct, f.json, itemStruct, asList(p), asList(c), childIndex);
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

function mergeKeyedList(
  struct: string,
  field: string,
  itemStruct: string | undefined,
  parent: readonly unknown[],
  child: readonly unknown[],
  childIndex: ReadonlyMap<string, ChildEntry>,
): unknown[] {
  const handle = MERGED_KEYS[struct]?.[field] ?? field;
  const result: unknown[] = [];
  for (const parentItem of parent) {
    const hit = childIndex.get(`${handle}\u0000${keyOf(parentItem, itemStruct)}`);
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

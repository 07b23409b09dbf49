/**
 * Ignition 3.x parse-and-validate, as `config/v3_X.Parse` does it: decode into the version's Go
 * types (a type mismatch is the only entry), then vcontext's three passes over the decoded tree —
 * every type's Validate method, duplicate keys in keyed lists, and JSON keys the types do not know.
 *
 * Built for the render path, which validates thousands of small configs: the schema is compiled
 * once per version, the three passes run as one walk (each pass keeps its own entry list, so the
 * report reads pass by pass as before), the parsed JSON stands in for the decoded value whenever
 * its keys match exactly, and paths are built only for entries.
 */
import { formatPath, type ReportEntry } from '../report.js';
import { compileSchema, structsOf, type CStruct, type CType } from './compiled-schema.js';
import { decodeConfig, fold, type GoStruct, type GoValue } from './decode.js';
import { contextMismatch, Msg, unusedKey } from './messages.js';
import {
  entryKey,
  IGNORE_DUPLICATES,
  MERGED_KEYS,
  RULES_V3,
  type RuleContext,
  type Sink,
} from './rules-v3.js';
import type { Schema } from './schema.js';
import { checkTypes } from './type-check.js';

interface Compiled {
  readonly schema: Schema;
  readonly root: CStruct;
}

/** By the spec's Go types, then rules (v2.14 or latest). */
const compiled = new WeakMap<Schema, (Compiled | undefined)[]>();

/** The spec's types with their rules, compiled on first use. */
function compiledFor(schema: Schema, ctx: RuleContext): Compiled {
  let bySchema = compiled.get(schema);
  if (bySchema === undefined) {
    bySchema = [];
    compiled.set(schema, bySchema);
  }
  const key = ctx.latest ? 1 : 0;
  const cached = bySchema[key];
  if (cached !== undefined) return cached;
  const root = compileSchema(schema, {
    rules: RULES_V3,
    ignoreDuplicates: IGNORE_DUPLICATES,
    mergedKeys: MERGED_KEYS,
  });
  markZeroSilent(root, ctx);
  const out = { schema, root };
  bySchema[key] = out;
  return out;
}

/** A struct whose zero value reports nothing can be skipped when the config leaves it out. */
function markZeroSilent(root: CStruct, ctx: RuleContext): void {
  for (const def of structsOf(root)) {
    const w = new Walk(ctx);
    w.struct(def, EMPTY, undefined);
    def.zeroSilent = w.validate.length === 0 && w.dups.length === 0 && w.unused.length === 0;
  }
}

const EMPTY: GoStruct = Object.freeze({});

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * One walk over a decoded value and, alongside, the JSON it came from (`undefined` where the JSON
 * has nothing at that exact path: vcontext's tree knows no case folding).
 */
class Walk {
  readonly ctx: RuleContext;
  readonly validate: ReportEntry[] = [];
  readonly dups: ReportEntry[] = [];
  readonly unused: ReportEntry[] = [];
  readonly path: (string | number)[] = [];
  readonly add: Sink;

  constructor(ctx: RuleContext) {
    this.ctx = ctx;
    this.add = (kind, path, message) => {
      this.validate.push({ kind, path, message });
    };
  }

  struct(def: CStruct, v: GoStruct, raw: unknown): void {
    def.rule?.(v, this.path, this.ctx, this.add);
    if (def.dups.length > 0) this.#duplicates(def, v);
    const rawRec = raw === undefined ? undefined : this.#unusedKeys(def, raw);
    for (const f of def.walk) {
      const child = v[f.json];
      // no field is named like an Object.prototype member, so a plain read finds own keys only
      const rawChild = rawRec === undefined ? undefined : rawRec === v ? child : rawRec[f.json];
      this.path.push(f.json);
      this.#field(f.type, child, rawChild);
      this.path.pop();
    }
  }

  /** Keys the struct does not know; the JSON as an object, if it is one. */
  #unusedKeys(def: CStruct, raw: unknown): Record<string, unknown> | undefined {
    const p = this.path;
    if (!isRecord(raw)) {
      const message = contextMismatch(formatPath(p));
      this.unused.push({ kind: 'warning', path: [...p], message });
      return undefined;
    }
    for (const key in raw) {
      if (Object.hasOwn(raw, key) && !def.exact.has(key))
        this.unused.push({ kind: 'warning', path: [...p, key], message: unusedKey(key) });
    }
    return raw;
  }

  #field(t: CType, child: GoValue | undefined, rawChild: unknown): void {
    if (t.kind === 'struct') {
      // absent or null: the zero value, which may be known to report nothing
      if (isRecord(child)) this.struct(t.def, child, rawChild);
      else if (rawChild !== undefined || !t.def.zeroSilent) this.struct(t.def, EMPTY, rawChild);
    } else if (t.kind === 'ptr') {
      if (t.elem.kind === 'struct' && isRecord(child)) this.struct(t.elem.def, child, rawChild);
    } else if (t.kind === 'list' && Array.isArray(child) && child.length > 0) {
      this.#list(t.elem, child as readonly GoValue[], rawChild);
    }
  }

  #list(elem: CType, items: readonly GoValue[], raw: unknown): void {
    const p = this.path;
    const rawItems = Array.isArray(raw) ? (raw as readonly unknown[]) : undefined;
    const def = elem.kind === 'struct' ? elem.def : undefined;
    const rule = elem.kind === 'string' ? elem.rule : undefined;
    if (def === undefined && rule === undefined) return;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] ?? null;
      p.push(i);
      if (def !== undefined) {
        const rawItem = rawItems !== undefined && i < rawItems.length ? rawItems[i] : undefined;
        this.struct(def, isRecord(item) ? item : EMPTY, rawItem);
      } else {
        rule?.(item, p, this.ctx, this.add);
      }
      p.pop();
    }
  }

  /** Duplicate keys among a struct's keyed lists, MergedKeys lists sharing one key space. */
  #duplicates(def: CStruct, v: GoStruct): void {
    let seen: (Set<string> | undefined)[] | undefined;
    for (const d of def.dups) {
      const items = v[d.json];
      if (!Array.isArray(items)) continue;
      const list = items as readonly GoValue[];
      if (list.length < 2 && !d.shared) continue;
      seen ??= new Array<Set<string> | undefined>(def.spaceCount);
      let keys = seen[d.space];
      if (keys === undefined) {
        keys = new Set<string>();
        seen[d.space] = keys;
      }
      for (let i = 0; i < list.length; i++) {
        const key = entryKey(d.keyType, list[i] ?? null);
        if (keys.has(key))
          this.dups.push({
            kind: 'error',
            path: [...this.path, d.json, i],
            message: Msg.duplicate,
          });
        keys.add(key);
      }
    }
  }
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

/**
 * Ignition first decodes only `ignition.version` (into util.versionStub) to pick the parser; its
 * type errors have their own wording. Every key Go matches is decoded, the first error reported.
 */
function versionStubError(raw: unknown): string | undefined {
  if (raw === null) return undefined;
  if (!isRecord(raw))
    return `json: cannot unmarshal ${jsonKind(raw)} into Go value of type util.versionStub`;
  for (const key in raw) {
    if (!Object.hasOwn(raw, key) || fold(key) !== 'ignition') continue;
    const ign = raw[key];
    if (ign === null) continue;
    if (!isRecord(ign))
      return `json: cannot unmarshal ${jsonKind(ign)} into Go struct field versionStub.Ignition of type struct { Version string }`;
    for (const k in ign) {
      if (!Object.hasOwn(ign, k) || fold(k) !== 'version') continue;
      const version = ign[k];
      if (version !== null && typeof version !== 'string')
        return `json: cannot unmarshal ${jsonKind(version)} into Go struct field .Ignition.Version of type string`;
    }
  }
  return undefined;
}

/** Validates `raw` as a config of the spec whose Go types `schema` holds. */
export function validateV3(raw: unknown, schema: Schema, ctx: RuleContext): ReportEntry[] {
  const stub = versionStubError(raw);
  if (stub !== undefined) return [{ kind: 'error', path: [], message: stub }];
  const c = compiledFor(schema, ctx);
  const types = checkTypes(c.root, raw);
  if (types.kind === 'mismatch') return [{ kind: 'error', path: [], message: types.message }];
  let value: GoStruct;
  if (types.kind === 'exact') {
    value = isRecord(raw) ? (raw as GoStruct) : EMPTY;
  } else {
    // a key only matches case-insensitively: decode as Go does, merging such keys into fields
    const decoded = decodeConfig(c.schema, raw);
    if (!decoded.ok) return [{ kind: 'error', path: [], message: decoded.message }];
    value = decoded.value;
  }
  const w = new Walk(ctx);
  w.struct(c.root, value, raw);
  return w.validate.length + w.dups.length + w.unused.length === 0
    ? []
    : [...w.validate, ...w.dups, ...w.unused];
}

/**
 * Ignition 3.x parse-and-validate, as `config/v3_X.Parse` does it: decode into the version's Go
 * types (a type mismatch is the only entry), then vcontext's three passes over the decoded tree —
 * every type's Validate method, duplicate keys in keyed lists, and JSON keys the types do not know.
 */
import type { ConfigPath, ReportEntry } from '../report.js';
import { decodeConfig, structDef, type GoStruct, type GoValue } from './decode.js';
import { contextMismatch, unusedKey } from './messages.js';
import {
  entryKey,
  IGNORE_DUPLICATES,
  MERGED_KEYS,
  RULES_V3,
  type RuleContext,
  type Sink,
} from './rules-v3.js';
import { schemaV3, type GoType, type Schema } from './schema.js';
import { formatPath } from '../report.js';

function typeKey(t: GoType): string | undefined {
  if (t.kind === 'struct') return t.struct;
  if (t.kind === 'string' && t.name.startsWith('types.')) return t.name.slice('types.'.length);
  return undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

interface Walk {
  readonly schema: Schema;
  /** Called for every value, before its children, with the value's Go type name if it has one. */
  readonly visit: (type: string | undefined, t: GoType, v: GoValue, path: ConfigPath) => void;
}

function walk(w: Walk, t: GoType, v: GoValue, path: ConfigPath): void {
  if (t.kind === 'ptr') {
    if (v !== null) walk(w, t.elem, v, path);
    return;
  }
  w.visit(typeKey(t), t, v, path);
  if (t.kind === 'list' && Array.isArray(v)) {
    (v as readonly GoValue[]).forEach((item, i) => {
      walk(w, t.elem, item, [...path, i]);
    });
  }
  if (t.kind === 'struct') {
    const s = v as GoStruct;
    for (const f of structDef(w.schema, t.struct).fields)
      walk(w, f.type, s[f.json] ?? null, [...path, f.json]);
  }
}

function validatePass(schema: Schema, root: GoStruct, ctx: RuleContext, add: Sink): void {
  walk(
    {
      schema,
      visit: (type, _t, v, path) => {
        const rule = type === undefined ? undefined : RULES_V3[type];
        rule?.(v, path, ctx, add);
      },
    },
    { kind: 'struct', struct: 'Config' },
    root,
    [],
  );
}

function dupPass(schema: Schema, root: GoStruct, add: Sink): void {
  walk(
    {
      schema,
      visit: (type, t, v, path) => {
        if (t.kind !== 'struct' || type === undefined) return;
        const s = v as GoStruct;
        const ignored = IGNORE_DUPLICATES[type] ?? [];
        const merged = MERGED_KEYS[type] ?? {};
        const seen = new Map<string, Set<string>>();
        for (const f of structDef(schema, t.struct).fields) {
          if (f.type.kind !== 'list' || ignored.includes(f.json)) continue;
          const space = merged[f.json] ?? f.json;
          const keys = seen.get(space) ?? new Set<string>();
          seen.set(space, keys);
          const elemType = typeKey(f.type.elem) ?? '';
          const items = s[f.json];
          if (!Array.isArray(items)) continue;
          (items as readonly GoValue[]).forEach((item, i) => {
            const key = entryKey(elemType, item);
            if (keys.has(key)) add('error', [...path, f.json, i], 'duplicate entry defined');
            keys.add(key);
          });
        }
      },
    },
    { kind: 'struct', struct: 'Config' },
    root,
    [],
  );
}

/** The raw JSON at a path, following exact keys only (vcontext's tree has no case folding). */
function rawAt(raw: unknown, path: ConfigPath): { found: boolean; value: unknown } {
  let cur: unknown = raw;
  for (const p of path) {
    if (typeof p === 'number') {
      if (!Array.isArray(cur) || p >= cur.length) return { found: false, value: undefined };
      cur = cur[p];
    } else {
      if (!isRecord(cur) || !Object.hasOwn(cur, p)) return { found: false, value: undefined };
      cur = cur[p];
    }
  }
  return { found: true, value: cur };
}

function unusedPass(schema: Schema, root: GoStruct, raw: unknown, add: Sink): void {
  walk(
    {
      schema,
      visit: (_type, t, _v, path) => {
        if (t.kind !== 'struct') return;
        const node = rawAt(raw, path);
        if (!node.found) return;
        if (!isRecord(node.value)) {
          add('warning', path, contextMismatch(formatPath(path)));
          return;
        }
        const known = new Set(structDef(schema, t.struct).fields.map((f) => f.json));
        for (const key of Object.keys(node.value))
          if (!known.has(key)) add('warning', [...path, key], unusedKey(key));
      },
    },
    { kind: 'struct', struct: 'Config' },
    root,
    [],
  );
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

/**
 * Ignition first decodes only `ignition.version` (into util.versionStub) to pick the parser; its
 * type errors have their own wording.
 */
function versionStubError(raw: unknown): string | undefined {
  if (raw === null) return undefined;
  if (!isRecord(raw))
    return `json: cannot unmarshal ${jsonKind(raw)} into Go value of type util.versionStub`;
  const ign = Object.entries(raw).find(([k]) => k.toLowerCase() === 'ignition')?.[1];
  if (ign === undefined || ign === null) return undefined;
  if (!isRecord(ign)) {
    return `json: cannot unmarshal ${jsonKind(ign)} into Go struct field versionStub.Ignition of type struct { Version string }`;
  }
  const version = Object.entries(ign).find(([k]) => k.toLowerCase() === 'version')?.[1];
  if (version === undefined || version === null || typeof version === 'string') return undefined;
  return `json: cannot unmarshal ${jsonKind(version)} into Go struct field .Ignition.Version of type string`;
}

export function validateV3(raw: unknown, ctx: RuleContext): ReportEntry[] {
  const entries: ReportEntry[] = [];
  const add: Sink = (kind, path, message) => {
    if (message !== undefined) entries.push({ kind, path, message });
  };
  const stub = versionStubError(raw);
  if (stub !== undefined) return [{ kind: 'error', path: [], message: stub }];
  const schema = schemaV3(ctx.minor);
  const decoded = decodeConfig(schema, raw);
  if (!decoded.ok) return [{ kind: 'error', path: [], message: decoded.message }];
  validatePass(schema, decoded.value, ctx, add);
  dupPass(schema, decoded.value, add);
  unusedPass(schema, decoded.value, raw, add);
  return entries;
}

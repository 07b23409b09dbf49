/**
 * The fast half of json.Unmarshal into a spec's Go types: checks the parsed JSON against the
 * compiled types in document order and reports Go's UnmarshalTypeError text for the first
 * mismatch. When every key matches its field exactly, the JSON value itself can stand in for the
 * decoded Go value (absent and null read as zero values), so nothing is copied. A key that only
 * matches case-insensitively stops the check: the caller then decodes the slow way (decode.ts),
 * which also merges such keys into their field as Go does.
 */
import type { CStruct, CType } from './compiled-schema.js';
import { fold } from './decode.js';

export type TypeCheck =
  | { readonly kind: 'exact' }
  | { readonly kind: 'folded' }
  | { readonly kind: 'mismatch'; readonly message: string };

const EXACT: TypeCheck = { kind: 'exact' };
const FOLDED: TypeCheck = { kind: 'folded' };
const INT64_MAX = 2 ** 63;

/** Thrown inside the recursion only, and turned into a result at its entry point. */
class FoldedKey extends Error {}

function jsonKind(raw: unknown): 'bool' | 'string' | 'number' | 'array' | 'object' {
  if (typeof raw === 'boolean') return 'bool';
  if (typeof raw === 'string') return 'string';
  if (typeof raw === 'number') return 'number';
  return Array.isArray(raw) ? 'array' : 'object';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Checker {
  /** JSON field names from the root to the value being checked (list indexes are not named). */
  readonly #trail: string[] = [];

  #mismatch(value: string, t: CType, struct: string | undefined): string {
    return struct === undefined && this.#trail.length === 0
      ? `json: cannot unmarshal ${value} into Go value of type ${t.goName}`
      : `json: cannot unmarshal ${value} into Go struct field ${struct ?? ''}.${this.#trail.join('.')} of type ${t.goName}`;
  }

  /** A mismatch message, or undefined when `raw` decodes into `t`. */
  value(t: CType, raw: unknown, struct: string | undefined): string | undefined {
    if (raw === null) return undefined;
    if (t.kind === 'ptr') return this.value(t.elem, raw, struct);
    const target = t;
    const kind = jsonKind(raw);
    switch (kind) {
      case 'bool':
      case 'string':
        return target.kind === (kind === 'bool' ? 'bool' : 'string')
          ? undefined
          : this.#mismatch(kind, target, struct);
      case 'number': {
        if (target.kind !== 'int') return this.#mismatch('number', target, struct);
        const n = raw as number;
        return Number.isInteger(n) && n < INT64_MAX && n >= -INT64_MAX
          ? undefined
          : this.#mismatch(`number ${String(n)}`, target, struct);
      }
      case 'array': {
        if (target.kind !== 'list') return this.#mismatch('array', target, struct);
        for (const item of raw as readonly unknown[]) {
          const m = this.value(target.elem, item, struct);
          if (m !== undefined) return m;
        }
        return undefined;
      }
      case 'object':
        if (target.kind !== 'struct' || !isObject(raw))
          return this.#mismatch('object', target, struct);
        return this.struct(target.def, raw);
    }
  }

  struct(def: CStruct, raw: Record<string, unknown>): string | undefined {
    for (const key in raw) {
      if (!Object.hasOwn(raw, key)) continue;
      const field = def.exact.get(key);
      if (field === undefined) {
        if (!def.folded.has(fold(key))) continue;
        throw new FoldedKey();
      }
      this.#trail.push(field.json);
      const m = this.value(field.type, raw[key], def.name);
      this.#trail.pop();
      if (m !== undefined) return m;
    }
    return undefined;
  }
}

/** Checks `raw` against the Config struct `root`. */
export function checkTypes(root: CStruct, raw: unknown): TypeCheck {
  try {
    const m = new Checker().value(
      { kind: 'struct', goName: 'types.Config', def: root },
      raw,
      undefined,
    );
    return m === undefined ? EXACT : { kind: 'mismatch', message: m };
  } catch (e) {
    if (e instanceof FoldedKey) return FOLDED;
    throw e;
  }
}

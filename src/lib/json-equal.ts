/**
 * Semantic equality of JSON values, standing in for upstream's equality.Semantic.DeepEqual on API
 * objects and reflect.DeepEqual on parsed Ignition: key order does not matter, array order does,
 * `undefined` members are as good as absent. Equal exactly when their canonical JSON texts are
 * (an `undefined` or non-finite number in an array reads as null, a `toJSON` value as what it
 * gives), compared by walking both rather than by writing the texts: no-op detection compares
 * every written object with the stored one, and the texts cost several times the walk.
 */
import { stringify } from 'safe-stable-stringify';

type Walkable = Record<string, unknown>;

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/** A non-finite number is written as null. */
function finite(value: unknown): unknown {
  return typeof value === 'number' && !Number.isFinite(value) ? null : value;
}

/** Whether an object member is written at all. */
function written(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/** What JSON writes for a value in an array (a member that writes as nothing is null there). */
function inArray(value: unknown): unknown {
  return written(value) ? finite(value) : null;
}

function equalScalars(a: unknown, b: unknown): boolean {
  return finite(a) === finite(b);
}

function equalObjects(a: Walkable, b: Walkable): boolean {
  let count = 0;
  for (const key in a) {
    if (!Object.hasOwn(a, key) || !written(a[key])) continue;
    count++;
    if (!Object.hasOwn(b, key) || !written(b[key]) || !jsonEqual(a[key], b[key])) return false;
  }
  for (const key in b) if (Object.hasOwn(b, key) && written(b[key])) count--;
  return count === 0;
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return equalScalars(a, b);
  if (hasToJson(a) || hasToJson(b)) return stringify(a) === stringify(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(inArray(a[i]), inArray(b[i]))) return false;
    return true;
  }
  return equalObjects(a as Walkable, b as Walkable);
}

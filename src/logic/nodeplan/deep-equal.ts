/**
 * Deep equality of parsed Ignition values, standing in for Go's reflect.DeepEqual on the Ignition
 * structs. Values are in the canonical parsed form (types.ts), so key order and absent-vs-empty
 * never make two equal configs differ.
 */
import { stringify } from 'safe-stable-stringify';

export function deepEqual(a: unknown, b: unknown): boolean {
  return stringify(a ?? null) === stringify(b ?? null);
}

/**
 * The diff's test for kernel arguments and extensions: "not both empty, and not element-wise
 * equal" (Go nil ≡ [], order matters).
 */
export function listsDiffer(a: readonly string[], b: readonly string[]): boolean {
  return !(a.length === b.length && a.every((x, i) => x === b[i]));
}

/**
 * Semantic equality of JSON values, standing in for upstream's equality.Semantic.DeepEqual on API
 * objects and reflect.DeepEqual on parsed Ignition: key order does not matter, array order does,
 * `undefined` members are as good as absent.
 */
import { stringify } from 'safe-stable-stringify';

export function jsonEqual(a: unknown, b: unknown): boolean {
  return stringify(a) === stringify(b);
}

/**
 * Semantic equality of JSON values (upstream's equality.Semantic.DeepEqual on API objects): key
 * order does not matter, array order does, `undefined` members are as good as absent.
 */
import { stringify } from 'safe-stable-stringify';

export function sameJson(a: unknown, b: unknown): boolean {
  return stringify(a) === stringify(b);
}

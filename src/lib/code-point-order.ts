/**
 * Orders strings by code point, which is UTF-8 byte order: the order SQLite's BINARY collation
 * and etcd give keys. JavaScript's `<` compares UTF-16 code units instead, and that differs for
 * characters above U+FFFF (surrogate pairs), which sort after U+E000..U+FFFF by code point.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) return codePointRank(ca) - codePointRank(cb);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/**
 * Binary search in `sorted`, ascending by code point of `keyOf(item)`: the first index whose key
 * is at or past `key`, or with `past` strictly past it.
 */
export function codePointBound<T>(
  sorted: readonly T[],
  key: string,
  keyOf: (item: T) => string,
  past = false,
): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const order = compareCodePoints(keyOf(sorted[mid] as T), key);
    if (order < 0 || (past && order === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

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

/**
 * Go's `path` package (slash-separated, lexical): Ignition's validation uses Clean to decide
 * whether a config path is "fully simplified" and Ext for unit and drop-in name suffixes; the
 * config translation joins paths with Join; the MCS cleans request paths as net/http does and
 * takes the pool name from a request path with Base.
 */

/** Go's path.Clean: the shortest equivalent path, by purely lexical processing. */
export function goPathClean(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const joined = out.join('/');
  if (rooted) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

export function goPathIsAbs(p: string): boolean {
  return p.startsWith('/');
}

/** Go's path.Ext: the suffix from the last dot in the final element, or "". */
export function goPathExt(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) {
    if (p[i] === '.') return p.slice(i);
  }
  return '';
}

/** Go's path.Join: empty elements are ignored, the result is cleaned; no elements give "". */
export function goPathJoin(...elems: string[]): string {
  const parts = elems.filter((x) => x !== '');
  return parts.length === 0 ? '' : goPathClean(parts.join('/'));
}

/**
 * Whether goPathClean(p) === p for an absolute p, without building the cleaned path: `/` itself, or
 * segments that are neither empty (`//`, a trailing `/`) nor `.` nor `..`.
 */
export function goPathIsCleanAbs(p: string): boolean {
  if (p === '/') return true;
  let start = 1;
  for (let i = 1; i <= p.length; i++) {
    if (i < p.length && p.charCodeAt(i) !== 0x2f) continue;
    const len = i - start;
    if (len === 0) return false;
    if (
      p.charCodeAt(start) === 0x2e &&
      (len === 1 || (len === 2 && p.charCodeAt(start + 1) === 0x2e))
    )
      return false;
    start = i + 1;
  }
  return true;
}

/** Go's path.Base: the last element, trailing slashes removed; "." for "", "/" for slashes only. */
export function goPathBase(p: string): string {
  if (p === '') return '.';
  const trimmed = p.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

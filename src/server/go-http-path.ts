/**
 * How upstream's Go server sees a request path: `URL.Path` (percent-decoded), ServeMux's
 * canonical-path redirect (`cleanPath`); `path.Base` for the pool name is lib/go's. Reproduced so that
 * odd paths (`//config/worker`, `/config/a/worker/`, `/config`) get the same answers.
 */
import { goPathClean } from '../lib/go/path.js';

/** The path and query of a request URL, without parsing the whole URL. */
export function splitRequestUrl(url: string): { rawPath: string; query: string } {
  const scheme = url.indexOf('://');
  const start = scheme < 0 ? 0 : url.indexOf('/', scheme + 3);
  if (start < 0) return { rawPath: '/', query: '' };
  const q = url.indexOf('?', start);
  const hash = url.indexOf('#', start);
  const end = hash < 0 ? url.length : hash;
  return q < 0 || q > end
    ? { rawPath: url.slice(start, end), query: '' }
    : { rawPath: url.slice(start, q), query: url.slice(q + 1, end) };
}

const Hex = /^[0-9a-fA-F]{2}$/;

/** `url.PathUnescape`: `%XX` to bytes (read as UTF-8); undefined for a malformed escape. */
export function unescapePath(raw: string): string | undefined {
  if (!raw.includes('%')) return raw;
  const encoder = new TextEncoder();
  const bytes: number[] = [];
  let i = 0;
  while (i < raw.length) {
    const pct = raw.indexOf('%', i);
    bytes.push(...encoder.encode(raw.slice(i, pct < 0 ? raw.length : pct)));
    if (pct < 0) break;
    const hex = raw.slice(pct + 1, pct + 3);
    if (!Hex.test(hex)) return undefined;
    bytes.push(parseInt(hex, 16));
    i = pct + 3;
  }
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

/** net/http's `cleanPath`: path.Clean, keeping a trailing slash. */
export function cleanPath(p: string): string {
  if (p === '') return '/';
  const rooted = p.startsWith('/') ? p : `/${p}`;
  let np = goPathClean(rooted);
  if (rooted.endsWith('/') && np !== '/') np += '/';
  return np;
}

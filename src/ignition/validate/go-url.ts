/**
 * The part of Go's net/url that Ignition's validation depends on: whether url.Parse accepts a
 * string, the (lower-cased) scheme it finds, and the query values it reports. Error texts are not
 * needed because Ignition replaces them with its own ("unable to parse url").
 */

export interface GoUrl {
  readonly scheme: string;
  readonly opaque: string;
  readonly rawQuery: string;
}

function isHexCode(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function hexValue(c: number): number {
  return c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10;
}

const Mode = {
  Path: 'path',
  Host: 'host',
  Zone: 'zone',
  User: 'user',
  Fragment: 'fragment',
  Query: 'query',
} as const;
type Mode = (typeof Mode)[keyof typeof Mode];

/** ASCII characters a host may hold unescaped: letters, digits, Go's sub-delims and `-_.~`. */
const HOST_OK = new Uint8Array(128);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!$&\'()*+,;=:[]<>"-_.~')
  HOST_OK[ch.charCodeAt(0)] = 1;

function hostCharNeedsEscape(c: number): boolean {
  return c < 0x80 && HOST_OK[c] !== 1;
}

/**
 * Go's unescape(s, mode), reduced to success or failure; with `decode` it also returns the decoded
 * text (queries turn `+` into a space).
 */
function unescape(s: string, mode: Mode, decode = false): string | undefined {
  const hostLike = mode === Mode.Host || mode === Mode.Zone;
  let out = '';
  for (let i = 0; i < s.length;) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      if (i + 2 >= s.length || !isHexCode(s.charCodeAt(i + 1)) || !isHexCode(s.charCodeAt(i + 2)))
        return undefined;
      const v = (hexValue(s.charCodeAt(i + 1)) << 4) | hexValue(s.charCodeAt(i + 2));
      const is25 = v === 0x25;
      if (mode === Mode.Host && v < 0x80 && !is25) return undefined;
      const zoneBad = v !== 0x20 && (v >= 0x80 || hostCharNeedsEscape(v));
      if (mode === Mode.Zone && !is25 && zoneBad) return undefined;
      if (decode) out += String.fromCharCode(v);
      i += 3;
      continue;
    }
    if (hostLike && hostCharNeedsEscape(c)) return undefined;
    if (decode) out += mode === Mode.Query && c === 0x2b ? ' ' : s.charAt(i);
    i++;
  }
  return out;
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  return /^:[0-9]*$/.test(port);
}

function parseHost(host: string): boolean {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) return false;
    if (!validOptionalPort(host.slice(i + 1))) return false;
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      return (
        unescape(host.slice(0, zone), Mode.Host) !== undefined &&
        unescape(host.slice(zone, i), Mode.Zone) !== undefined &&
        unescape(host.slice(i), Mode.Host) !== undefined
      );
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1 && !validOptionalPort(host.slice(i))) return false;
  }
  return unescape(host, Mode.Host) !== undefined;
}

function parseAuthority(authority: string): boolean {
  const at = authority.lastIndexOf('@');
  if (!parseHost(at < 0 ? authority : authority.slice(at + 1))) return false;
  if (at < 0) return true;
  const userinfo = authority.slice(0, at);
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) return false;
  return userinfo.split(':', 2).every((part) => unescape(part, Mode.User) !== undefined);
}

const isAsciiLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

function getScheme(raw: string): { scheme: string; rest: string } | undefined {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (isAsciiLetter(c)) continue;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return { scheme: '', rest: raw };
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) return undefined;
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

/** Go's url.Parse: undefined where Go returns an error. */
export function goUrlParse(rawUrl: string): GoUrl | undefined {
  const hash = rawUrl.indexOf('#');
  const u = hash < 0 ? rawUrl : rawUrl.slice(0, hash);
  if (hash >= 0 && unescape(rawUrl.slice(hash + 1), Mode.Fragment) === undefined) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(u)) return undefined;
  if (u === '*') return { scheme: '', opaque: '', rawQuery: '' };
  const sr = getScheme(u);
  if (sr === undefined) return undefined;
  const scheme = sr.scheme.toLowerCase();
  let rest = sr.rest;
  let rawQuery = '';
  if (rest.indexOf('?') === rest.length - 1 && rest.length > 0) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { scheme, opaque: rest, rawQuery };
    const slash = rest.indexOf('/');
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(':')) return undefined;
  }
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const afterSlashes = rest.slice(2);
    const slash = afterSlashes.indexOf('/');
    const authority = slash < 0 ? afterSlashes : afterSlashes.slice(0, slash);
    if (!parseAuthority(authority)) return undefined;
    rest = slash < 0 ? '' : afterSlashes.slice(slash);
  }
  if (unescape(rest, Mode.Path) === undefined) return undefined;
  return { scheme, opaque: '', rawQuery };
}

/** Go's url.ParseQuery, keeping only well-formed pairs (as Query() does). */
export function goQueryValues(rawQuery: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const part of rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const key = unescape(eq < 0 ? part : part.slice(0, eq), Mode.Query, true);
    const value = unescape(eq < 0 ? '' : part.slice(eq + 1), Mode.Query, true);
    if (key === undefined || value === undefined) continue;
    m.set(key, [...(m.get(key) ?? []), value]);
  }
  return m;
}

/**
 * Registry credentials and challenges: the containers-auth.json file (`{"auths": {"<registry>[/
 * <namespace>]": {"auth": base64("user:password")}}}`, as podman, skopeo and the kubelet's
 * config.json write it; the most specific key wins) and the `WWW-Authenticate` challenges of the
 * Distribution token flow (RFC 7235 parameters: `Bearer realm="…",service="…",scope="…"`).
 */
import { errorText } from '../../lib/error-text.js';

export interface Credentials {
  readonly username: string;
  readonly password: string;
}

/** Credentials by normalised key: `registry` or `registry/namespace/…`. */
export type RegistryAuth = ReadonlyMap<string, Credentials>;

export const NoAuth: RegistryAuth = new Map();

/** `https://index.docker.io/v1/` → `docker.io`; `quay.io/` → `quay.io`. */
function normalizeAuthKey(key: string): string {
  let k = key.replace(/^[a-z]+:\/\//, '').replace(/\/+$/, '');
  k = k.replace(/\/v[12]$/, '');
  if (k === 'index.docker.io' || k === 'registry-1.docker.io') k = 'docker.io';
  return k;
}

function decodeAuth(key: string, auth: string): Credentials {
  const text = Buffer.from(auth, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) throw new Error(`auth file: the "auth" of ${key} is not base64("user:password")`);
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** Parses a containers-auth.json / docker config.json document. */
export function parseAuthFile(text: string, source = 'auth file'): RegistryAuth {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`${source}: not JSON: ${errorText(e)}`);
  }
  const auths = (doc as { auths?: unknown } | null)?.auths;
  const out = new Map<string, Credentials>();
  if (auths === undefined) return out;
  if (typeof auths !== 'object' || auths === null || Array.isArray(auths))
    throw new Error(`${source}: "auths" must be an object`);
  for (const [key, value] of Object.entries(auths as Record<string, unknown>)) {
    const v = value as { auth?: unknown; username?: unknown; password?: unknown } | null;
    if (typeof v?.auth === 'string' && v.auth !== '') {
      out.set(normalizeAuthKey(key), decodeAuth(key, v.auth));
    } else if (typeof v?.username === 'string' && typeof v.password === 'string') {
      out.set(normalizeAuthKey(key), { username: v.username, password: v.password });
    }
  }
  return out;
}

/** The credentials for a repository: `registry/a/b` → `registry/a` → `registry`. */
export function credentialsFor(
  auth: RegistryAuth,
  registry: string,
  repository: string,
): Credentials | undefined {
  const parts = repository.split('/');
  for (let i = parts.length; i >= 0; i--) {
    const key = [normalizeAuthKey(registry), ...parts.slice(0, i)].join('/');
    const found = auth.get(key);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function basicAuthorization(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
}

export interface Challenge {
  readonly scheme: 'basic' | 'bearer';
  readonly params: ReadonlyMap<string, string>;
}

/** The first Basic or Bearer challenge of a `WWW-Authenticate` header, if any. */
export function parseChallenge(header: string | undefined): Challenge | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*(\w+)\s*(.*)$/s.exec(header);
  if (m?.[1] === undefined) return undefined;
  const scheme = m[1].toLowerCase();
  if (scheme !== 'basic' && scheme !== 'bearer') return undefined;
  const params = new Map<string, string>();
  const param = /([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))\s*,?/g;
  for (const p of (m[2] ?? '').matchAll(param)) {
    if (p[1] !== undefined)
      params.set(p[1].toLowerCase(), (p[2] ?? p[3] ?? '').replace(/\\(.)/g, '$1'));
  }
  return { scheme, params };
}

/**
 * The pointer Ignition config (user data) a new machine boots with (docs/reference/mcs.md §6.5): a
 * tiny config that merges the real one from the machine config server, trusting the server's CA
 * given inline. The operator's `<pool>-user-data-managed` Secret and `mco pointer-config` both
 * build it here.
 *
 * Beyond upstream, an optional bearer token rides on the merge entry as an `Authorization`
 * header (`httpHeaders`, spec 3.1+), so Ignition itself sends it to a server run with
 * `--require-token`.
 */
import { encodeDataUrlBase64 } from '../ignition/data-url.js';
import { GeneratedSpecVersion, SpecVersions, type SpecVersion } from '../ignition/versions.js';
import { clarketmJsonString } from '../lib/go/clarketm-json-string.js';
import type { Result } from '../lib/result.js';
import { err, ok } from '../lib/result.js';

/** Specs a pointer config may be written in: every 3.x spec; 3.0.0 cannot carry the token header. */
export type PointerSpecVersion = Exclude<SpecVersion, '2.2.0'>;
export const PointerSpecVersions = SpecVersions.filter(
  (v): v is PointerSpecVersion => v !== '2.2.0',
);

/**
 * What the operator writes (upstream): a generated config, so it keeps the generated configs'
 * version. Ignition 2.14 reads at most 3.3.0.
 */
export const DefaultPointerSpecVersion: PointerSpecVersion = GeneratedSpecVersion;

export interface PointerConfigInput {
  readonly pool: string;
  /** The server's base URL, e.g. `https://api-int.example.com:22623`; `/config/<pool>` is added. */
  readonly serverUrl: string;
  /** PEM bundle of the CA that signed the server's certificate. */
  readonly caBundle: Uint8Array;
  /** Sent as `Authorization: Bearer <token>` when given. */
  readonly token?: string;
  readonly specVersion?: PointerSpecVersion;
}

export type PointerConfigError =
  | { readonly kind: 'InvalidPool'; readonly pool: string }
  | { readonly kind: 'InvalidUrl'; readonly url: string; readonly reason: string }
  | { readonly kind: 'InvalidToken' }
  | { readonly kind: 'TokenNeedsHeaders'; readonly version: PointerSpecVersion }
  | { readonly kind: 'UnsupportedVersion'; readonly version: string };

export function describePointerConfigError(e: PointerConfigError): string {
  switch (e.kind) {
    case 'InvalidPool':
      return `invalid pool name ${JSON.stringify(e.pool)}: expected a non-empty name without "/"`;
    case 'InvalidUrl':
      return `invalid server URL ${JSON.stringify(e.url)}: ${e.reason}`;
    case 'InvalidToken':
      return 'invalid token: expected visible ASCII characters only (no spaces or line breaks)';
    case 'TokenNeedsHeaders':
      return `a token needs Ignition spec 3.1.0 or newer (httpHeaders); asked for ${e.version}`;
    case 'UnsupportedVersion':
      return `unsupported pointer config spec version ${JSON.stringify(e.version)}; supported: ${PointerSpecVersions.join(', ')}`;
  }
}

function isPointerSpecVersion(v: string): v is PointerSpecVersion {
  return (PointerSpecVersions as readonly string[]).includes(v);
}

function checkUrl(url: string): Result<string, PointerConfigError> {
  const bad = (reason: string) => err({ kind: 'InvalidUrl' as const, url, reason });
  const m = /^(https?):\/\/([^/?#]+)\/*$/.exec(url);
  if (m === null) return bad('expected http(s)://HOST[:PORT] with no path, query or fragment');
  const host = m[2] ?? '';
  if (host.includes('@')) return bad('user information is not allowed');
  return ok(`${m[1] ?? ''}://${host}`);
}

/**
 * The pointer config's JSON text, fields in the order upstream writes them:
 * `{"ignition":{"version":…,"config":{"merge":[{"source":…}]},"security":{"tls":{…}}}}`.
 */
export function pointerConfig(input: PointerConfigInput): Result<string, PointerConfigError> {
  const version = input.specVersion ?? DefaultPointerSpecVersion;
  if (!isPointerSpecVersion(version)) return err({ kind: 'UnsupportedVersion', version });
  if (input.pool === '' || input.pool.includes('/') || input.pool === '.' || input.pool === '..')
    return err({ kind: 'InvalidPool', pool: input.pool });
  const base = checkUrl(input.serverUrl);
  if (!base.ok) return base;
  let headers = '';
  if (input.token !== undefined) {
    if (!/^[\x21-\x7e]+$/.test(input.token)) return err({ kind: 'InvalidToken' });
    if (version === '3.0.0') return err({ kind: 'TokenNeedsHeaders', version });
    headers = `,"httpHeaders":[{"name":"Authorization","value":${clarketmJsonString(`Bearer ${input.token}`)}}]`;
  }
  const source = clarketmJsonString(`${base.value}/config/${input.pool}`);
  const ca = clarketmJsonString(encodeDataUrlBase64(input.caBundle, 'text/plain;charset=utf-8'));
  return ok(
    `{"ignition":{"version":${clarketmJsonString(version)},"config":{"merge":[{"source":${source}${headers}}]},` +
      `"security":{"tls":{"certificateAuthorities":[{"source":${ca}}]}}}}`,
  );
}

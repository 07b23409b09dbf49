import { describe, expect, it } from 'vitest';
import { parseIgnition } from '../ignition/parse.js';
import { isFatal } from '../ignition/report.js';
import {
  describePointerConfigError,
  pointerConfig,
  PointerSpecVersions,
  type PointerConfigInput,
  type PointerSpecVersion,
} from './pointer-config.js';

const ca = new TextEncoder().encode(
  '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
);
const caB64 = Buffer.from(ca).toString('base64');
const base: PointerConfigInput = {
  pool: 'worker',
  serverUrl: 'https://api-int.example.com:22623',
  caBundle: ca,
};

describe('pointerConfig', () => {
  it('is upstream’s user data, byte for byte (docs/reference/mcs.md §6.5)', () => {
    expect(pointerConfig(base)).toStrictEqual({
      ok: true,
      value: `{"ignition":{"version":"3.5.0","config":{"merge":[{"source":"https://api-int.example.com:22623/config/worker"}]},"security":{"tls":{"certificateAuthorities":[{"source":"data:text/plain;charset=utf-8;base64,${caB64}"}]}}}}`,
    });
  });

  it('carries the token as an Authorization header on the merge entry', () => {
    expect(pointerConfig({ ...base, token: 's3cr3t.T0ken', specVersion: '3.3.0' })).toStrictEqual({
      ok: true,
      value: `{"ignition":{"version":"3.3.0","config":{"merge":[{"source":"https://api-int.example.com:22623/config/worker","httpHeaders":[{"name":"Authorization","value":"Bearer s3cr3t.T0ken"}]}]},"security":{"tls":{"certificateAuthorities":[{"source":"data:text/plain;charset=utf-8;base64,${caB64}"}]}}}}`,
    });
  });

  it('drops trailing slashes of the server URL', () => {
    const r = pointerConfig({ ...base, serverUrl: 'https://10.0.0.1:22623//' });
    expect(r.ok && r.value).toContain('"source":"https://10.0.0.1:22623/config/worker"');
  });

  it.each(PointerSpecVersions.flatMap((v) => [[v, false] as const, [v, true] as const]))(
    'spec %s (token %s) is a valid Ignition config of that spec',
    (version, withToken) => {
      if (withToken && version === '3.0.0') return;
      const r = pointerConfig({
        ...base,
        specVersion: version,
        ...(withToken ? { token: 't' } : {}),
      });
      if (!r.ok) throw new Error(describePointerConfigError(r.error));
      const parsed = parseIgnition(r.value);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
      expect(parsed.value.version).toBe(version);
      expect(isFatal(parsed.value.report)).toBe(false);
      expect(parsed.value.report.entries).toStrictEqual([]);
    },
  );

  it.each([
    [{ pool: '' }, 'invalid pool name "": expected a non-empty name without "/"'],
    [{ pool: 'a/b' }, 'invalid pool name "a/b": expected a non-empty name without "/"'],
    [
      { serverUrl: 'ftp://x' },
      'invalid server URL "ftp://x": expected http(s)://HOST[:PORT] with no path, query or fragment',
    ],
    [
      { serverUrl: 'https://x:1/path' },
      'invalid server URL "https://x:1/path": expected http(s)://HOST[:PORT] with no path, query or fragment',
    ],
    [
      { serverUrl: 'https://u@x:1' },
      'invalid server URL "https://u@x:1": user information is not allowed',
    ],
    [
      { token: 'has space' },
      'invalid token: expected visible ASCII characters only (no spaces or line breaks)',
    ],
    [
      { token: 'line\nbreak' },
      'invalid token: expected visible ASCII characters only (no spaces or line breaks)',
    ],
    [
      { token: 't', specVersion: '3.0.0' as const },
      'a token needs Ignition spec 3.1.0 or newer (httpHeaders); asked for 3.0.0',
    ],
    [
      { specVersion: '2.2.0' as unknown as PointerSpecVersion },
      'unsupported pointer config spec version "2.2.0"; supported: 3.0.0, 3.1.0, 3.2.0, 3.3.0, 3.4.0, 3.5.0',
    ],
  ])('%j is refused: %s', (change, message) => {
    const r = pointerConfig({ ...base, ...change });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(describePointerConfigError(r.error)).toBe(message);
  });
});

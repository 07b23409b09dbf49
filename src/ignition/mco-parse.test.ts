import { describe, expect, it } from 'vitest';
import { describeMcoParseError, ignParseWrapper, parseAndConvertConfig } from './mco-parse.js';
import { serializeIgnition } from './serialize.js';
import { InternalSpecVersion } from './versions.js';

const VERSIONS = 'Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5';

function wrapperText(raw: unknown): string {
  const r = ignParseWrapper(raw);
  return r.ok ? `ok ${r.value.version}` : describeMcoParseError(r.error);
}

function convertText(raw: unknown): string {
  const r = parseAndConvertConfig(raw);
  return r.ok ? serializeIgnition(r.value) : describeMcoParseError(r.error);
}

describe('ignParseWrapper', () => {
  it.each<[string, unknown, string]>([
    ['a 3.4 config', { ignition: { version: '3.4.0' } }, 'ok 3.4.0'],
    ['a 2.2 config', '{"ignition":{"version":"2.2.0"}}', 'ok 2.2.0'],
    [
      '4.0.0',
      { ignition: { version: '4.0.0' } },
      `parsing Ignition config failed: unknown version. ${VERSIONS}`,
    ],
    [
      '3.6.0',
      { ignition: { version: '3.6.0' } },
      `parsing Ignition config failed: unknown version. ${VERSIONS}`,
    ],
    ['config: {}', {}, `parsing Ignition config failed: invalid version. ${VERSIONS}`],
    [
      'empty bytes',
      new Uint8Array(),
      'parsing Ignition config spec v3 failed with error: not a config (empty)\nReport: ',
    ],
    [
      'malformed JSON',
      '{"ignition":{}',
      'parsing Ignition config spec v3 failed with error: config is not valid\nReport: error at $, line 0 col 0: unexpected end of JSON input',
    ],
    [
      'a config that fails validation',
      { ignition: { version: InternalSpecVersion }, storage: { files: [{ path: 'x' }] } },
      'parsing Ignition config spec v3 failed with error: config is not valid\nReport: error at $.storage.files.0.path: path not absolute',
    ],
  ])('%s', (_name, raw, expected) => {
    expect(wrapperText(raw)).toBe(expected);
  });
});

describe('parseAndConvertConfig', () => {
  it('B18: an unknown version, with the ParseAndConvertConfig prefix', () => {
    expect(convertText({ ignition: { version: '4.0.0' } })).toBe(
      `failed to parse Ignition config: parsing Ignition config failed: unknown version. ${VERSIONS}`,
    );
  });

  it('takes 3.x configs to 3.5', () => {
    expect(
      convertText({
        ignition: { version: '3.1.0' },
        storage: { files: [{ path: '/a', mode: 420, contents: { source: 'data:,x' } }] },
      }),
    ).toBe(
      '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/a","contents":{"source":"data:,x"},"mode":420}]}}',
    );
  });

  it('de-duplicates and converts spec 2 configs', () => {
    expect(
      convertText({
        ignition: { version: '2.2.0' },
        storage: {
          files: [
            { filesystem: 'root', path: '/a', mode: 420, contents: { source: 'data:,1' } },
            { filesystem: 'root', path: '/a', mode: 384, contents: { source: 'data:,2' } },
          ],
        },
      }),
    ).toBe(
      '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"overwrite":true,"path":"/a","contents":{"source":"data:,2"},"mode":384}]}}',
    );
  });

  it('returns the de-duplication error unwrapped, as upstream', () => {
    expect(
      convertText({ ignition: { version: '2.2.0' }, passwd: { users: [{ name: 'admin' }] } }),
    ).toBe('unexpected user with name: admin. Only core user is supported');
  });

  it('wraps spec 2 conversion errors', () => {
    expect(
      convertText({
        ignition: { version: '2.2.0' },
        networkd: { units: [{ name: 'a.network', contents: '[Match]\n' }] },
      }),
    ).toBe(
      'failed to convert Ignition config spec v2 to v3: unable to convert Ignition spec v2 config to v3: config includes deprecated networkd section - use Files instead',
    );
  });
});

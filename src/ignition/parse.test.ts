import { describe, expect, it } from 'vitest';
import {
  describeIgnitionParseError,
  detectSpecVersion,
  goSyntaxError,
  parseIgnition,
} from './parse.js';
import { InternalSpecVersion, SpecVersions } from './versions.js';

const INVALID =
  'parsing Ignition config failed: invalid version. Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5';
const UNKNOWN =
  'parsing Ignition config failed: unknown version. Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5';

function describeResult(raw: unknown): string {
  const r = detectSpecVersion(raw);
  return r.ok ? r.value : describeIgnitionParseError(r.error);
}

describe('detectSpecVersion', () => {
  it.each(SpecVersions.map((v) => [v]))('reads %s', (v) => {
    expect(detectSpecVersion({ ignition: { version: v } })).toEqual({ ok: true, value: v });
    expect(detectSpecVersion(`{"ignition":{"version":"${v}"}}`)).toEqual({ ok: true, value: v });
  });

  it.each([
    ['2.1.0', { ignition: { version: '2.1.0' } }, UNKNOWN],
    ['2.4.0', { ignition: { version: '2.4.0' } }, UNKNOWN],
    ['3.6.0', { ignition: { version: '3.6.0' } }, UNKNOWN],
    ['4.0.0', { ignition: { version: '4.0.0' } }, UNKNOWN],
    ['a patch release', { ignition: { version: '3.5.1' } }, UNKNOWN],
    ['a pre-release', { ignition: { version: '3.5.0-experimental' } }, UNKNOWN],
    [
      'leading zeros (go-semver reads 3.05.0 as 3.5.0)',
      { ignition: { version: '3.05.0' } },
      '3.5.0',
    ],
    ['empty version', { ignition: { version: '' } }, INVALID],
    ['two-part version', { ignition: { version: '3.5' } }, INVALID],
    ['v-prefixed version', { ignition: { version: 'v3.5.0' } }, INVALID],
    ['missing version', { ignition: {} }, INVALID],
    ['null version', { ignition: { version: null } }, INVALID],
    ['missing ignition (config: {})', {}, INVALID],
    ['null ignition', { ignition: null }, INVALID],
    ['JSON null', null, INVALID],
    ['key case folded as Go does', { Ignition: { Version: '3.4.0' } }, '3.4.0'],
  ])('%s', (_name, raw, expected) => {
    expect(describeResult(raw)).toBe(expected);
  });

  it.each([
    [
      'non-string version',
      '{"ignition":{"version":3}}',
      'error at $, line 1 col 25: json: cannot unmarshal number into Go struct field .ignition.version of type string',
    ],
    [
      'non-object ignition',
      '{"ignition":"3.5.0"}',
      'error at $, line 1 col 20: json: cannot unmarshal string into Go struct field .ignition of type struct { Version *string "json:\\"version\\"" }',
    ],
    [
      'top-level array',
      '[]',
      'error at $, line 1 col 2: json: cannot unmarshal array into Go value of type struct { Ignition struct { Version *string "json:\\"version\\"" } "json:\\"ignition\\"" }',
    ],
    [
      'malformed JSON',
      '{"ignition": x}',
      "error at $, line 1 col 15: invalid character 'x' looking for beginning of value",
    ],
    ['truncated JSON', '{"ignition":', 'error at $, line 0 col 0: unexpected end of JSON input'],
  ])('%s is reported as Ignition reports a JSON error', (_name, raw, report) => {
    expect(describeResult(raw)).toBe(
      `parsing Ignition config spec v3 failed with error: config is not valid\nReport: ${report}`,
    );
  });

  it('treats zero bytes as an empty config', () => {
    expect(detectSpecVersion(new Uint8Array())).toEqual({ ok: false, error: { kind: 'Empty' } });
    expect(describeResult('')).toBe(
      'parsing Ignition config spec v3 failed with error: not a config (empty)\nReport: ',
    );
  });

  it('reads UTF-8 bytes', () => {
    const bytes = new TextEncoder().encode('{"ignition":{"version":"3.2.0"}}');
    expect(detectSpecVersion(bytes)).toEqual({ ok: true, value: '3.2.0' });
  });
});

describe('goSyntaxError', () => {
  it.each([
    ['   ', 'unexpected end of JSON input', 3],
    ['{"a" 1}', "invalid character '1' after object key", 6],
    ['{"a":1 "b"}', "invalid character '\"' after object key:value pair", 8],
    ['[1 2]', "invalid character '2' after array element", 4],
    ['{1}', "invalid character '1' looking for beginning of object key string", 2],
    ['tru', 'unexpected end of JSON input', 3],
    ['trux', "invalid character 'x' in literal true (expecting 'e')", 4],
    ['nulL', "invalid character 'L' in literal null (expecting 'l')", 4],
    ['-a', "invalid character 'a' in numeric literal", 2],
    ['1.x', "invalid character 'x' after decimal point in numeric literal", 3],
    ['1ex', "invalid character 'x' in exponent of numeric literal", 3],
    ['01', "invalid character '1' after top-level value", 2],
    ['"a\\q"', "invalid character 'q' in string escape code", 4],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape", 6],
    ['"a\nb"', "invalid character '\\n' in string literal", 3],
    ['{}}', "invalid character '}' after top-level value", 3],
    ['é', "invalid character 'Ã' looking for beginning of value", 1],
    ['\uFEFF{}', "invalid character 'ï' looking for beginning of value", 1],
  ])('%j', (text, message, offset) => {
    expect(goSyntaxError(text)).toEqual({ message, offset });
  });

  it('accepts valid JSON', () => {
    expect(goSyntaxError(' {"a": [1, -2.5e+3, true, false, null, "x\\u00e9"]} ')).toBeUndefined();
  });
});

describe('parseIgnition', () => {
  it.each(SpecVersions.filter((v) => v !== '2.2.0').map((v) => [v]))(
    'accepts a %s config holding only its version',
    (v) => {
      const r = parseIgnition({ ignition: { version: v } });
      expect(r.ok && r.value.config).toEqual({ ignition: { version: v } });
    },
  );

  it('reports a failed validation with the whole report', () => {
    const r = parseIgnition({
      ignition: { version: InternalSpecVersion },
      storage: { files: [{ path: 'relative' }] },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('Invalid');
    expect(describeIgnitionParseError(r.error)).toBe(
      'invalid ignition V3 config found: error at $.storage.files.0.path: path not absolute',
    );
  });

  it('names spec 2 in a failed spec 2 validation', () => {
    const report = {
      entries: [{ kind: 'error' as const, path: ['storage', 'files', 0, 'path'], message: 'x' }],
    };
    expect(describeIgnitionParseError({ kind: 'Invalid', version: '2.2.0', report })).toBe(
      'invalid ignition V2 config found: error at $.storage.files.0.path: x',
    );
  });

  it('decodes as Go does: null is unset, keys fold case, unknown keys are dropped', () => {
    const r = parseIgnition({
      ignition: { version: InternalSpecVersion, timeouts: null },
      Storage: {
        Files: [
          {
            Path: '/etc/a',
            mode: null,
            overwrite: false,
            contents: { source: 'data:,a' },
            bogus: 1,
          },
        ],
      },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k1', null] }] },
    });
    expect(r.ok && r.value.config).toEqual({
      ignition: { version: InternalSpecVersion },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k1', ''] }] },
      storage: { files: [{ path: '/etc/a', overwrite: false, contents: { source: 'data:,a' } }] },
    });
  });

  it('keeps explicit zero values of pointers and fills required fields', () => {
    const r = parseIgnition({
      ignition: { version: InternalSpecVersion },
      storage: { files: [{ path: '/etc/a', mode: 0, contents: { compression: '', source: '' } }] },
      systemd: { units: [{ name: 'a.service', enabled: false }] },
    });
    expect(r.ok && r.value.config).toEqual({
      ignition: { version: InternalSpecVersion },
      storage: { files: [{ path: '/etc/a', mode: 0, contents: { compression: '', source: '' } }] },
      systemd: { units: [{ name: 'a.service', enabled: false }] },
    });
  });

  it('returns spec 2 configs in spec 2 form', () => {
    const r = parseIgnition(
      '{"ignition":{"version":"2.2.0"},"systemd":{"units":[{"name":"a.service","enable":true,"mask":false}]}}',
    );
    expect(r.ok && r.value).toMatchObject({
      version: '2.2.0',
      config: {
        ignition: { version: '2.2.0' },
        systemd: { units: [{ name: 'a.service', enable: true }] },
      },
    });
  });
});

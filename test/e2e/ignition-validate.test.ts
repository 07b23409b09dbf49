/**
 * Our validator against the real one. Every fixture in test/fixtures/ignition is validated by
 * `/usr/bin/ignition-validate` (Ignition 2.14, specs 3.0–3.3) and by validateIgnition on the same
 * bytes; both must give the same verdict (exit 1 ⇔ our report is fatal) and the same set of
 * (kind, JSON path, message) entries, line and column left out.
 *
 * There are no message exceptions. Known differences are kept out of the fixtures on purpose, and
 * are listed here so nobody adds one by accident: we validate the parsed JSON value, so integer
 * fields written `420.0` or `4.2e2` are accepted (Go rejects every fraction or exponent literal),
 * and the text of a rejected number is JavaScript's (`1e+21`), not the literal as written.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isFatal } from '../../src/ignition/report.js';
import { validateIgnition } from '../../src/ignition/validate/validate.js';
import type { SpecVersion } from '../../src/ignition/versions.js';
import {
  oracleLines,
  parseOracleOutput,
  reportLines,
  requireIgnitionValidate,
  runIgnitionValidate,
} from '../support/ignition-validate.js';

const FixtureDir = fileURLToPath(new URL('../fixtures/ignition/', import.meta.url));
const Fixtures = readdirSync(FixtureDir)
  .filter((f) => f.endsWith('.ign'))
  .sort();
const OracleVersions = ['3.0.0', '3.1.0', '3.2.0', '3.3.0'] as const;

interface Fixture {
  readonly bytes: Uint8Array;
  readonly config: unknown;
  readonly version: SpecVersion;
  /** From the name: `<spec>-<topic>.valid.ign` or `.invalid.ign`. */
  readonly valid: boolean;
}

function load(name: string): Fixture {
  const bytes = readFileSync(`${FixtureDir}${name}`);
  const config = JSON.parse(bytes.toString('utf8')) as { ignition?: { version?: string } };
  const version = config.ignition?.version ?? '';
  if (!(OracleVersions as readonly string[]).includes(version))
    throw new Error(`${name}: spec ${version} is not one ignition-validate 2.14 accepts`);
  return { bytes, config, version: version as SpecVersion, valid: name.endsWith('.valid.ign') };
}

describe('ignition-validate agreement', () => {
  // Checked in every test rather than in a hook: a failing hook would only mark the tests skipped.
  it('ignition-validate is installed', async () => {
    await requireIgnitionValidate();
  });

  it('has at least 45 fixtures, valid and invalid ones in every spec 3.0–3.3', () => {
    expect(Fixtures.length).toBeGreaterThanOrEqual(45);
    for (const version of OracleVersions) {
      const mine = Fixtures.map(load).filter((f) => f.version === version);
      expect(
        mine.some((f) => f.valid),
        `a valid ${version} fixture`,
      ).toBe(true);
      expect(
        mine.some((f) => !f.valid),
        `an invalid ${version} fixture`,
      ).toBe(true);
    }
    for (const name of Fixtures)
      expect(name).toMatch(/^3\.[0-3]-[a-z0-9-]+\.(valid|invalid)\.ign$/);
  });

  it.each(Fixtures)('%s', async (name) => {
    await requireIgnitionValidate();
    const fixture = load(name);
    const oracle = await runIgnitionValidate(fixture.bytes);
    expect([0, 1], oracle.output).toContain(oracle.exitCode);
    expect(oracle.exitCode, `the fixture is ${fixture.valid ? 'valid' : 'invalid'}`).toBe(
      fixture.valid ? 0 : 1,
    );

    const report = validateIgnition(fixture.config, fixture.version);
    expect(isFatal(report)).toBe(oracle.exitCode === 1);
    expect(reportLines(report)).toEqual(oracleLines(oracle.entries));
  });
});

describe('fixture coverage', () => {
  // One message per rule family; the agreement test proves the oracle prints the same ones.
  const rules = [
    'path not specified',
    'path not absolute',
    'path is not fully simplified',
    'duplicate entry defined',
    'file path includes link in config',
    'directory path includes link in config',
    'link path includes link in config',
    'link target is required',
    'hard link target is a directory',
    'invalid data character',
    'missing comma before data',
    'invalid media type',
    'rfc2396: invalid char 0x25 in unescape sequence',
    'illegal base64 data at input byte 0',
    'invalid syntax',
    'invalid compression method',
    'illegal file mode',
    'setuid/setgid/sticky bits are not supported in spec versions older than 3.4.0',
    'overwrite must be false if source is unspecified',
    'source must be specified if verification is specified',
    'cannot set both id and name',
    'invalid systemd unit extension',
    'invalid systemd drop-in extension',
    'invalid unit content: unable to find end of section',
    'invalid unit content: line too long (max 2048 bytes)',
    'unit "a.service" is enabled, but has no install section so enable does nothing',
    'invalid url scheme',
    'unable to parse url',
    'invalid S3 object VersionId',
    'source is required',
    "HTTP header name can't be empty",
    'unable to parse HTTP header',
    'cannot use HTTP headers with this source scheme',
    'proxies must be http(s)',
    'insecure plaintext HTTP proxy specified for HTTPS resources',
    'malformed hash specifier',
    'unrecognized hash function',
    'incorrect size for hash sum',
    'disk device is required',
    'partition numbers collide',
    'partitions overlap',
    'partition labels may not exceed 36 characters',
    'partition label will be truncated to text before the colon',
    'cannot use the same partition label twice',
    'a partition number >= 1 or a label must be specified',
    'shouldExist specified false with other options also specified',
    'shouldExist is false for a partition and other partition(s) has start or size 0',
    'invalid filesystem format',
    'filesystem must specify format if label is specified',
    'format cannot be empty when path, label, uuid, wipeFilesystem, options, or mountOptions is specified',
    'filesystem labels cannot be longer than 16 characters when using ext4',
    'luks device labels cannot be longer than 47 characters',
    'device names cannot contain slashes',
    'invalid key-file source',
    'missing required custom clevis pin',
    'unsupported clevis pin',
    'missing required custom clevis config',
    'cannot use custom clevis config with tpm2, tang, or threshold',
    'thumbprint is required',
    'raid level is required',
    'spares unsupported for linear and raid0 arrays',
    'unrecognized raid level',
    'raid devices required',
    'Unused key filez',
    'Unused key kernelArguments',
    'Unused key luks',
    'json: cannot unmarshal string into Go struct field File.storage.files.mode of type int',
    'json: cannot unmarshal number 4.5 into Go struct field File.storage.files.mode of type int',
  ];

  it('the fixtures exercise every rule family', () => {
    const seen = new Set<string>();
    for (const name of Fixtures) {
      const f = load(name);
      for (const e of validateIgnition(f.config, f.version).entries) seen.add(e.message);
    }
    expect(rules.filter((m) => !seen.has(m))).toEqual([]);
  });
});

describe('parseOracleOutput', () => {
  it('drops line and column, keeps path-less errors', () => {
    const stdout = [
      'error at $.storage.files.1, line 1 col 83: duplicate entry defined',
      'warning at $.storage.filez, line 1 col 44: Unused key filez',
      'error at line 1 col 77: json: cannot unmarshal number 4.5 into Go value',
      '',
    ].join('\n');
    const stderr = "couldn't parse config: unsupported config version\n";
    expect(parseOracleOutput(stdout, stderr)).toEqual([
      { kind: 'error', path: '$.storage.files.1', message: 'duplicate entry defined' },
      { kind: 'warning', path: '$.storage.filez', message: 'Unused key filez' },
      { kind: 'error', path: '', message: 'json: cannot unmarshal number 4.5 into Go value' },
      { kind: 'error', path: '', message: 'unsupported config version' },
    ]);
  });

  it('refuses output it does not understand', () => {
    expect(() => parseOracleOutput('something else\n', '')).toThrow(
      'unrecognised ignition-validate output line: something else',
    );
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCa, type TestCa } from '../../test/e2e/mcs-support.js';
import { readCertificatePair } from './mcs-listeners.js';

const dir = mkdtempSync(join(tmpdir(), 'mcs-pair-'));
let ca: TestCa;
beforeAll(async () => {
  ca = await makeCa();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function write(name: string, options?: Parameters<TestCa['issue']>[0]) {
  const p = await ca.issue(options);
  writeFileSync(join(dir, `${name}.crt`), p.certPem);
  writeFileSync(join(dir, `${name}.key`), p.keyPem);
  return p;
}

const day = 86_400_000;

describe('readCertificatePair', () => {
  it('accepts a matching pair that is valid now', async () => {
    await write('good');
    const pair = await readCertificatePair(
      join(dir, 'good.crt'),
      join(dir, 'good.key'),
      Date.now(),
    );
    expect(pair.subject).toBe('CN=machine-config-server');
    expect(pair.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['expired', { notBefore: Date.now() - 3 * day, notAfter: Date.now() - day }, /expired at/],
    [
      'not yet valid',
      { notBefore: Date.now() + day, notAfter: Date.now() + 3 * day },
      /is not valid before/,
    ],
  ])('refuses a certificate that is %s', async (name, options, message) => {
    await write(name.replace(/ /g, '-'), options);
    const base = join(dir, name.replace(/ /g, '-'));
    await expect(readCertificatePair(`${base}.crt`, `${base}.key`, Date.now())).rejects.toThrow(
      message,
    );
  });

  it('refuses a key of another certificate, garbage, and missing files', async () => {
    await write('a');
    await write('b');
    await expect(
      readCertificatePair(join(dir, 'a.crt'), join(dir, 'b.key'), Date.now()),
    ).rejects.toThrow('does not match the certificate');
    writeFileSync(join(dir, 'junk.crt'), 'junk');
    await expect(
      readCertificatePair(join(dir, 'junk.crt'), join(dir, 'a.key'), Date.now()),
    ).rejects.toThrow('is not a PEM certificate');
    await expect(
      readCertificatePair(join(dir, 'a.crt'), join(dir, 'junk.crt'), Date.now()),
    ).rejects.toThrow('is not a PEM private key');
    await expect(
      readCertificatePair(join(dir, 'none.crt'), join(dir, 'a.key'), Date.now()),
    ).rejects.toThrow('cannot read the certificate or key');
  });
});

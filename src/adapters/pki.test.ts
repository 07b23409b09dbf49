import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensurePki, PkiFile } from './pki.js';

function makeTmpDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    remove: () => {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

const dir = makeTmpDir('mco-pki-');
afterAll(() => {
  dir.remove();
});
const now = Date.parse('2026-11-29T09:00:00Z');

describe('ensurePki', () => {
  it('creates a CA and a serving certificate for localhost, 127.0.0.1 and the given hosts', async () => {
    const pki = await ensurePki({ dir: dir.path, hosts: ['10.0.0.5', 'api.example'], now });
    expect(pki.issued).toEqual({ ca: true, serving: true });
    const ca = new X509Certificate(pki.caCertPem);
    const serving = new X509Certificate(pki.servingCertPem);
    expect(ca.ca).toBe(true);
    expect(serving.ca).toBe(false);
    expect(serving.checkIssued(ca) && serving.verify(ca.publicKey)).toBe(true);
    expect(serving.subjectAltName).toBe(
      'DNS:localhost, IP Address:127.0.0.1, IP Address:10.0.0.5, DNS:api.example',
    );
    expect(serving.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(serving.validFrom).toBe('Nov 29 08:59:00 2026 GMT');
    expect(serving.validTo).toBe('Nov 29 09:00:00 2027 GMT');
    expect(statSync(join(dir.path, PkiFile.caKey)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir.path, PkiFile.servingKey)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir.path, PkiFile.servingKey), 'utf8')).toMatch(
      /^-----BEGIN PRIVATE KEY-----/,
    );
  });

  it('reuses everything on restart with the same hosts', async () => {
    const before = readFileSync(join(dir.path, PkiFile.servingCert), 'utf8');
    const pki = await ensurePki({ dir: dir.path, hosts: ['api.example'], now: now + 1000 });
    expect(pki.issued).toEqual({ ca: false, serving: false });
    expect(pki.servingCertPem).toBe(before);
  });

  it('re-issues the serving certificate (same CA) for a new host or near expiry', async () => {
    const caBefore = readFileSync(join(dir.path, PkiFile.caCert), 'utf8');
    const added = await ensurePki({ dir: dir.path, hosts: ['10.0.0.6'], now });
    expect(added.issued).toEqual({ ca: false, serving: true });
    expect(new X509Certificate(added.servingCertPem).subjectAltName).toBe(
      'DNS:localhost, IP Address:127.0.0.1, IP Address:10.0.0.6',
    );
    const late = await ensurePki({
      dir: dir.path,
      hosts: ['10.0.0.6'],
      now: now + 340 * 86_400_000,
    });
    expect(late.issued).toEqual({ ca: false, serving: true });
    expect(readFileSync(join(dir.path, PkiFile.caCert), 'utf8')).toBe(caBefore);
  });

  it('serves TLS that a client trusting only the CA accepts', async () => {
    const { createServer } = await import('node:https');
    const { request } = await import('node:https');
    const fresh = makeTmpDir('mco-pki-tls-');
    const pki = await ensurePki({ dir: fresh.path, hosts: [], now: Date.now() });
    fresh.remove();
    const server = createServer({ key: pki.servingKeyPem, cert: pki.servingCertPem }, (_req, res) =>
      res.end('ok'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const body = await new Promise<string>((resolve, reject) => {
      request({ host: '127.0.0.1', port, ca: pki.caCertPem }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => {
          resolve(text);
        });
      })
        .on('error', reject)
        .end();
    });
    server.close();
    expect(body).toBe('ok');
  });
});

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTokenFile } from '../apiserver/auth/token-file.js';
import { parseListen } from '../shell/listen-address.js';
import { ensureCredentials, writeKubeconfigs } from '../shell/apiserver-credentials.js';
import { readKubeconfig } from '../shell/kubeconfig.js';

describe('parseListen', () => {
  it.each([
    ['127.0.0.1:6443', { host: '127.0.0.1', port: 6443 }],
    ['0.0.0.0:0', { host: '0.0.0.0', port: 0 }],
    [':6443', { host: '', port: 6443 }],
    ['[::1]:6443', { host: '::1', port: 6443 }],
  ])('%s', (listen, expected) => {
    expect(parseListen(listen)).toEqual(expected);
  });

  it.each(['127.0.0.1', '127.0.0.1:99999', 'host:port'])('rejects %s', (listen) => {
    expect(() => parseListen(listen)).toThrow(
      `--listen ${listen}: expected HOST:PORT, e.g. 127.0.0.1:6443`,
    );
  });
});

describe('ensureCredentials', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mco-credentials-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates one token per built-in identity in a 0600 token file, and reuses them', () => {
    const first = ensureCredentials(dir);
    expect([...first.byIdentity.keys()]).toEqual([
      'admin',
      'controller',
      'mcs',
      'operator',
      'daemon',
      'dashboard',
      'bootstrap',
    ]);
    expect(statSync(join(dir, 'tokens.csv')).mode & 0o777).toBe(0o600);
    const parsed = parseTokenFile(readFileSync(join(dir, 'tokens.csv'), 'utf8'));
    expect(parsed.ok && parsed.value.map((t) => [t.user.name, t.user.groups])).toEqual([
      ['system:admin', ['system:masters']],
      [
        'system:serviceaccount:openshift-machine-config-operator:machine-config-controller',
        ['system:serviceaccounts', 'system:serviceaccounts:openshift-machine-config-operator'],
      ],
      [
        'system:serviceaccount:openshift-machine-config-operator:machine-config-server',
        ['system:serviceaccounts', 'system:serviceaccounts:openshift-machine-config-operator'],
      ],
      [
        'system:serviceaccount:openshift-machine-config-operator:machine-config-operator',
        ['system:serviceaccounts', 'system:serviceaccounts:openshift-machine-config-operator'],
      ],
      [
        'system:serviceaccount:openshift-machine-config-operator:machine-config-daemon',
        ['system:serviceaccounts', 'system:serviceaccounts:openshift-machine-config-operator'],
      ],
      [
        'system:serviceaccount:openshift-machine-config-operator:machine-config-dashboard',
        ['system:serviceaccounts', 'system:serviceaccounts:openshift-machine-config-operator'],
      ],
      [
        'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper',
        ['system:serviceaccounts', 'system:serviceaccounts:openshift-machine-config-operator'],
      ],
    ]);
    expect(ensureCredentials(dir).byIdentity).toEqual(first.byIdentity);
  });

  it('keeps lines an administrator added and adds a missing identity', () => {
    const text = readFileSync(join(dir, 'tokens.csv'), 'utf8')
      .split('\n')
      .filter((l) => !l.includes('node-bootstrapper'))
      .join('\n');
    writeFileSync(join(dir, 'tokens.csv'), `${text}extra-token,alice,u-alice,"team"\n`);
    const again = ensureCredentials(dir);
    expect(again.tokens.map((t) => t.user.name)).toContain('alice');
    expect(again.byIdentity.get('bootstrap')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('writes a 0600 kubeconfig per identity with its token', () => {
    const credentials = ensureCredentials(dir);
    writeKubeconfigs(dir, 'https://127.0.0.1:6443', 'CA\n', credentials);
    for (const [identity, token] of credentials.byIdentity) {
      const path = join(dir, `${identity}.kubeconfig`);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(readKubeconfig(readFileSync(path, 'utf8'))).toEqual({
        server: 'https://127.0.0.1:6443',
        caPem: 'CA\n',
        token,
      });
    }
  });
});

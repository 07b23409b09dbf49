import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseKubeconfig, selectKubeconfigContext } from '../lib/kubeconfig.js';
import {
  credentialsFromSelection,
  inClusterCredentials,
  selectionFiles,
} from './https-resource-client.js';

const dir = mkdtempSync(join(tmpdir(), 'mco-https-client-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('inClusterCredentials', () => {
  writeFileSync(join(dir, 'token'), 'sa-token\n');
  writeFileSync(join(dir, 'ca.crt'), 'CA\n');

  it("takes the API from the service env and the pod's token file (kept, to be read again)", () => {
    expect(
      inClusterCredentials(
        { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
        dir,
      ),
    ).toEqual({ server: 'https://10.0.0.1:443', ca: 'CA\n', tokenFile: join(dir, 'token') });
    expect(
      inClusterCredentials(
        { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' },
        dir,
      ).server,
    ).toBe('https://[fd00::1]:6443');
  });

  it('says what is missing outside a pod', () => {
    expect(() => inClusterCredentials({}, dir)).toThrow(
      'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined',
    );
    expect(() =>
      inClusterCredentials(
        { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
        join(dir, 'nowhere'),
      ),
    ).toThrow(/nowhere\/token/);
  });
});

describe('kubeconfig credentials', () => {
  it('lists the files a selected context names, made absolute', () => {
    const text = [
      'clusters: [{name: c, cluster: {server: "https://h:6443", certificate-authority: ca.crt}}]',
      'users: [{name: u, user: {tokenFile: token, client-certificate: /pki/cert.pem, client-key-data: S0VZ}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
    ].join('\n');
    const selection = selectKubeconfigContext(parseKubeconfig(text, '/var/lib/kubelet/kubeconfig'));
    expect(selectionFiles(selection)).toEqual([
      '/var/lib/kubelet/ca.crt',
      '/pki/cert.pem',
      '/var/lib/kubelet/token',
    ]);
    const files: Record<string, string> = {
      '/var/lib/kubelet/ca.crt': 'CA',
      '/pki/cert.pem': 'CERT',
      '/var/lib/kubelet/token': 'tok\n',
    };
    expect(credentialsFromSelection(selection, (f) => files[f] ?? '')).toEqual({
      server: 'https://h:6443',
      ca: 'CA',
      token: 'tok',
      cert: 'CERT',
      key: 'KEY',
    });
  });
});

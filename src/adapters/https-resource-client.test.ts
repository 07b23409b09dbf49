import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  credentialsFromKubeconfig,
  inClusterCredentials,
  kubeconfigFiles,
  kubeconfigParts,
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
  const kubeconfig = [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{name: c, cluster: {server: "https://h:6443", certificate-authority: ca.crt}}]',
    'users: [{name: u, user: {tokenFile: token, client-certificate: /pki/cert.pem, client-key-data: S0VZ}}]',
    'contexts: [{name: x, context: {cluster: c, user: u}}]',
    'current-context: x',
  ].join('\n');

  it('lists the files a kubeconfig names, as written', () => {
    expect(kubeconfigFiles(kubeconfigParts(kubeconfig, 'k'))).toEqual([
      'ca.crt',
      '/pki/cert.pem',
      'token',
    ]);
  });

  it('reads files relative to the kubeconfig and keeps a token file to read again', () => {
    const path = join(dir, 'k.yaml');
    writeFileSync(path, kubeconfig.replace('/pki/cert.pem', join(dir, 'cert.pem')));
    writeFileSync(join(dir, 'cert.pem'), 'CERT');
    expect(credentialsFromKubeconfig(path)).toEqual({
      server: 'https://h:6443',
      ca: 'CA\n',
      tokenFile: join(dir, 'token'),
      cert: 'CERT',
      key: 'KEY',
    });
  });

  it('refuses a current context without a server', () => {
    expect(() => kubeconfigParts('current-context: x\n', 'k')).toThrow(
      'k: the current context names no cluster with a server',
    );
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { operatorConfig } from './operator-command.js';

const dir = mkdtempSync(join(tmpdir(), 'mco-operator-cli-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const CaPem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
writeFileSync(join(dir, 'mcs-ca.crt'), 'mcs ca\n');
writeFileSync(join(dir, 'kube-ca.crt'), CaPem);

function kubeconfig(name: string, cluster: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443", ${cluster}}}]`,
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
      '',
    ].join('\n'),
  );
  return path;
}

const base = {
  releaseVersion: '0.1.0',
  operatorImage: 'mco:0.1.0',
  mcsUrl: 'https://127.0.0.1:22623',
  mcsCaFile: join(dir, 'mcs-ca.crt'),
  leaderElect: false,
  leaderElectLeaseDuration: '137s',
  leaderElectRenewDeadline: '107s',
  leaderElectRetryPeriod: '26s',
  metricsAddress: '127.0.0.1',
  pollInterval: '1s',
  controllerConfigTimeout: '5m',
  requiredPoolsTimeoutPerMachine: '10m',
  logLevel: 'info',
  followReleaseImages: false,
};

describe("the operator's kube CA (ControllerConfig kubeAPIServerServingCAData)", () => {
  const b64 = Buffer.from(CaPem).toString('base64');

  it.each([
    ['inline certificate-authority-data', `certificate-authority-data: ${b64}`],
    [
      'a certificate-authority file, relative to the kubeconfig',
      'certificate-authority: kube-ca.crt',
    ],
    [
      'a certificate-authority file by absolute path',
      `certificate-authority: ${join(dir, 'kube-ca.crt')}`,
    ],
  ])('is read from %s', (_name, cluster) => {
    const config = operatorConfig({ ...base, kubeconfig: kubeconfig('k.yaml', cluster) });
    expect(config.kubeAPIServerServingCAData).toBe(b64);
  });

  it('--kube-ca-file wins over the kubeconfig', () => {
    writeFileSync(join(dir, 'other.crt'), 'other\n');
    const config = operatorConfig({
      ...base,
      kubeconfig: kubeconfig('k2.yaml', 'certificate-authority: kube-ca.crt'),
      kubeCaFile: join(dir, 'other.crt'),
    });
    expect(config.kubeAPIServerServingCAData).toBe(Buffer.from('other\n').toString('base64'));
  });

  it('refuses a kubeconfig with no CA rather than handing nodes an empty one', () => {
    const path = kubeconfig('k3.yaml', 'insecure-skip-tls-verify: true');
    expect(() => operatorConfig({ ...base, kubeconfig: path })).toThrow(
      `--kubeconfig ${path}: the current context's cluster has no certificate-authority or certificate-authority-data; pass --kube-ca-file`,
    );
  });

  it('names the missing CA file', () => {
    const path = kubeconfig('k4.yaml', 'certificate-authority: missing.crt');
    expect(() => operatorConfig({ ...base, kubeconfig: path })).toThrow(/missing\.crt/);
  });
});

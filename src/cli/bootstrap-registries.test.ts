import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ManifestObject } from '../lib/manifests.js';
import { renderBootstrap } from './bootstrap-command.js';
import { defaultTemplatesDir, loadTemplates } from './load-templates.js';

const templates = loadTemplates(defaultTemplatesDir());
const release = `quay.io/openshift-release-dev/ocp-release@sha256:${'c'.repeat(64)}`;
const controllerConfig = {
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'ControllerConfig',
  metadata: { name: 'machine-config-controller' },
  spec: {
    releaseImage: release,
    clusterDNSIP: '172.30.0.10',
    ipFamilies: 'IPv4',
    platform: 'none',
    infra: { status: { platformStatus: { type: 'None' } } },
    dns: { spec: { baseDomain: 'example.com' } },
    images: {},
    osImageURL: '',
  },
} as unknown as ManifestObject;
const idms = {
  apiVersion: 'config.openshift.io/v1',
  kind: 'ImageDigestMirrorSet',
  metadata: { name: 'release' },
  spec: {
    imageDigestMirrors: [
      { source: 'quay.io/openshift-release-dev', mirrors: ['127.0.0.1:5000/mirror'] },
    ],
  },
} as unknown as ManifestObject;

type Rendered = {
  spec: { config: { storage?: { files?: { path: string; contents: { source: string } }[] } } };
};

function renderedFiles(objects: ManifestObject[], pool: string): Map<string, string> {
  const out = renderBootstrap({ objects, templates, manifestDir: 'manifests' });
  const name = [...out.files.keys()].find((k) => k.startsWith(`machine-configs/rendered-${pool}-`));
  const mc = parse(out.files.get(name ?? '') ?? '') as Rendered;
  return new Map(
    (mc.spec.config.storage?.files ?? []).map((f) => [
      f.path,
      Buffer.from(f.contents.source.slice(f.contents.source.indexOf(',') + 1), 'base64').toString(
        'utf8',
      ),
    ]),
  );
}

describe('mco bootstrap with registries documents', () => {
  it('without any, the template registries.conf is what the pools get', () => {
    const conf = renderedFiles([controllerConfig], 'worker').get('/etc/containers/registries.conf');
    expect(conf).not.toContain('[[registry]]');
  });

  it('an ImageDigestMirrorSet (no Image) gives every pool the mirror, from the ControllerConfig’s release image', () => {
    for (const pool of ['master', 'worker']) {
      const conf = renderedFiles([controllerConfig, idms], pool).get(
        '/etc/containers/registries.conf',
      );
      expect(conf).toContain('location = "quay.io/openshift-release-dev"');
      expect(conf).toContain('location = "127.0.0.1:5000/mirror"');
      expect(conf).toContain('pull-from-mirror = "digest-only"');
    }
  });

  it('a ClusterImagePolicy and an ImagePolicy: sigstore requirements, registries.d and the namespace policy', () => {
    const keyData = Buffer.from(
      '-----BEGIN PUBLIC KEY-----\nkey\n-----END PUBLIC KEY-----\n',
    ).toString('base64');
    const policy = { rootOfTrust: { policyType: 'PublicKey', publicKey: { keyData } } };
    const cip = {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterImagePolicy',
      metadata: { name: 'release' },
      spec: { scopes: ['quay.io/openshift-release-dev'], policy },
    } as unknown as ManifestObject;
    const ip = {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ImagePolicy',
      metadata: { name: 'apps', namespace: 'team-a' },
      spec: { scopes: ['apps.example.com'], policy },
    } as unknown as ManifestObject;
    const files = renderedFiles([controllerConfig, idms, cip, ip], 'worker');
    const signed = [
      { type: 'sigstoreSigned', keyData, signedIdentity: { type: 'matchRepoDigestOrExact' } },
    ];
    expect(JSON.parse(files.get('/etc/containers/policy.json') ?? '')).toMatchObject({
      transports: { docker: { 'quay.io/openshift-release-dev': signed } },
    });
    expect(files.get('/etc/containers/registries.d/sigstore-registries.yaml')).toBe(
      [
        'docker:',
        '  127.0.0.1:5000/mirror:',
        '    use-sigstore-attachments: true',
        '  apps.example.com:',
        '    use-sigstore-attachments: true',
        '  quay.io/openshift-release-dev:',
        '    use-sigstore-attachments: true',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(files.get('/etc/crio/policies/team-a.json') ?? '')).toMatchObject({
      transports: { docker: { 'apps.example.com': signed } },
    });
  });

  it('a bad policy object fails bootstrap with containers/image’s error', () => {
    const cip = {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterImagePolicy',
      metadata: { name: 'bad' },
      spec: {
        scopes: ['quay.io'],
        policy: {
          rootOfTrust: {
            policyType: 'PKI',
            pki: { caRootsData: 'Y2E=', pkiCertificateSubject: {} },
          },
        },
      },
    } as unknown as ManifestObject;
    expect(() => renderedFiles([controllerConfig, cip], 'worker')).toThrow(
      'At least one of subjectEmail, subjectHostname must be specified',
    );
  });
});

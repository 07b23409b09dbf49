/**
 * The registries controller against a real `mco apiserver` with the repository's templates: no
 * Image `cluster` means no config; with it and the ClusterVersion, an ImageDigestMirrorSet becomes
 * `99-<pool>-generated-registries` for each built-in pool (role label, version annotation, the Image
 * as owner) holding registries.conf with digest-only mirrors; blocked registries add policy.json;
 * a bad mirror set changes nothing; a ClusterImagePolicy and an ImagePolicy add sigstore
 * requirements, registries.d and the namespace's crio policy, and the ImagePolicy whose scope the
 * ClusterImagePolicy holds gets its `Pending` condition.
 */
import { withoutChangeStamp } from '../support/change-stamp.js';
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'smol-toml';
import type { ClusterImagePolicy } from '../../src/api/config/v1/cluster-image-policy.js';
import type { ClusterVersion } from '../../src/api/config/v1/cluster-version.js';
import type { ImagePolicy } from '../../src/api/config/v1/image-policy.js';
import type { ImageDigestMirrorSet } from '../../src/api/config/v1/image-digest-mirror-set.js';
import type { Image } from '../../src/api/config/v1/image.js';
import type { ImageContentSourcePolicy } from '../../src/api/operator/v1alpha1/image-content-source-policy.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../src/api/resource-refs.js';
import { defaultTemplatesDir, loadTemplates } from '../../src/cli/load-templates.js';
import { parseDataUrl } from '../../src/ignition/data-url.js';
import { McoVersion } from '../../src/version.js';
import { pool as makePool } from '../support/machine-configs.js';
import { ControllerHarness, eventually, sleep } from './controller-harness.js';

let h: ControllerHarness;
const Release = 'quay.io/openshift-release-dev/ocp-release@sha256:' + 'a'.repeat(64);

beforeAll(async () => {
  h = await ControllerHarness.start();
  h.run({ only: ['container-runtime-config'], templates: loadTemplates(defaultTemplatesDir()) });
  for (const name of ['master', 'worker']) {
    const p = makePool(name);
    await h.create<MachineConfigPool>(Resources.machineConfigPool, {
      ...p,
      metadata: { ...p.metadata, labels: { 'machineconfiguration.openshift.io/mco-built-in': '' } },
    });
  }
  await h.create<MachineConfigPool>(
    Resources.machineConfigPool,
    makePool('infra', ['worker', 'infra']),
  );
  const cv = await h.create<ClusterVersion>(Resources.clusterVersion, {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterVersion',
    metadata: { name: 'version' },
    spec: { clusterID: 'c' },
  });
  await h.admin.updateStatus(Resources.clusterVersion, {
    ...cv,
    status: { desired: { image: Release, version: '4.99.0' } },
  });
});

afterAll(async () => {
  await h.dispose();
});

type FileLike = { path: string; contents?: { source?: string } };

function fileText(mc: MachineConfig, path: string): string | undefined {
  const files =
    (mc.spec?.config as { storage?: { files?: FileLike[] } } | undefined)?.storage?.files ?? [];
  const f = files.find((x) => x.path === path);
  if (f === undefined) return undefined;
  const url = parseDataUrl(f.contents?.source ?? '');
  return url.ok ? new TextDecoder().decode(url.value.data) : undefined;
}

const idms = (name: string, source: string, mirrors: string[]): ImageDigestMirrorSet => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'ImageDigestMirrorSet',
  metadata: { name },
  spec: { imageDigestMirrors: [{ source, mirrors }] },
});

describe('the registries controller', () => {
  it('writes nothing while Image cluster is absent, even with a mirror set', async () => {
    await h.create(
      Resources.imageDigestMirrorSet,
      idms('release', 'quay.io/openshift-release-dev', ['127.0.0.1:5000/mirror']),
    );
    await sleep(1500);
    expect(
      await h.tryGet(Resources.machineConfig, '99-worker-generated-registries'),
    ).toBeUndefined();
  });

  it('with Image cluster: 99-<pool>-generated-registries for the built-in pools only', async () => {
    const image = await h.create<Image>(Resources.image, {
      apiVersion: 'config.openshift.io/v1',
      kind: 'Image',
      metadata: { name: 'cluster' },
      spec: {},
    });
    for (const pool of ['master', 'worker'])
      await eventually(
        `99-${pool}-generated-registries`,
        async () =>
          (await h.tryGet(Resources.machineConfig, `99-${pool}-generated-registries`)) !==
          undefined,
      );
    const mc = await h.get<MachineConfig>(
      Resources.machineConfig,
      '99-worker-generated-registries',
    );
    expect(mc.metadata.labels).toEqual({ 'machineconfiguration.openshift.io/role': 'worker' });
    expect(withoutChangeStamp(mc.metadata.annotations)).toEqual({
      'machineconfiguration.openshift.io/generated-by-controller-version': McoVersion.hash,
    });
    expect(mc.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Image',
        name: 'cluster',
        uid: image.metadata.uid,
      },
    ]);
    expect((mc.spec?.config as { ignition: { version: string } }).ignition.version).toBe('3.5.0');
    expect(parse(fileText(mc, '/etc/containers/registries.conf') ?? '')).toEqual({
      'unqualified-search-registries': ['registry.access.redhat.com', 'docker.io'],
      'short-name-mode': 'enforcing',
      registry: [
        {
          prefix: '',
          location: 'quay.io/openshift-release-dev',
          insecure: false,
          blocked: false,
          mirror: [
            {
              location: '127.0.0.1:5000/mirror',
              insecure: false,
              'pull-from-mirror': 'digest-only',
            },
          ],
        },
      ],
    });
    expect(fileText(mc, '/etc/containers/policy.json')).toBeUndefined();
    expect(
      await h.tryGet(Resources.machineConfig, '99-infra-generated-registries'),
    ).toBeUndefined();
  });

  it('blocked registries add policy.json; an ICSP adds its mirrors', async () => {
    const image = await h.get<Image>(Resources.image, 'cluster');
    await h.admin.update(Resources.image, {
      ...image,
      spec: { registrySources: { blockedRegistries: ['blocked.example.com'] } },
    });
    await h.create<ImageContentSourcePolicy>(Resources.imageContentSourcePolicy, {
      apiVersion: 'operator.openshift.io/v1alpha1',
      kind: 'ImageContentSourcePolicy',
      metadata: { name: 'legacy' },
      spec: {
        repositoryDigestMirrors: [
          { source: 'registry.example.com/app', mirrors: ['127.0.0.1:5000/app'] },
        ],
      },
    });
    await eventually('policy.json and the ICSP mirror', async () => {
      const mc = await h.get<MachineConfig>(
        Resources.machineConfig,
        '99-master-generated-registries',
      );
      return (
        fileText(mc, '/etc/containers/policy.json') !== undefined &&
        (fileText(mc, '/etc/containers/registries.conf') ?? '').includes('registry.example.com/app')
      );
    });
    const mc = await h.get<MachineConfig>(
      Resources.machineConfig,
      '99-master-generated-registries',
    );
    const policy = JSON.parse(fileText(mc, '/etc/containers/policy.json') ?? '{}') as {
      transports: { docker: Record<string, unknown> };
    };
    expect(policy.transports.docker).toEqual({ 'blocked.example.com': [{ type: 'reject' }] });
  });

  it('a mirror set that conflicts changes nothing', async () => {
    const before = await h.get<MachineConfig>(
      Resources.machineConfig,
      '99-worker-generated-registries',
    );
    await h.create<ImageDigestMirrorSet>(Resources.imageDigestMirrorSet, {
      ...idms('conflict', 'registry.example.com/app', ['127.0.0.1:5001/app']),
      spec: {
        imageDigestMirrors: [
          {
            source: 'registry.example.com/app',
            mirrors: ['127.0.0.1:5001/app'],
            mirrorSourcePolicy: 'NeverContactSource',
          },
        ],
      },
    });
    await sleep(1500);
    const after = await h.get<MachineConfig>(
      Resources.machineConfig,
      '99-worker-generated-registries',
    );
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('image policies: sigstore requirements, registries.d, the namespace policy, a Pending ImagePolicy', async () => {
    await h.admin.delete(Resources.imageDigestMirrorSet, 'conflict');
    const image = await h.get<Image>(Resources.image, 'cluster');
    await h.admin.update(Resources.image, { ...image, spec: {} });
    const keyData = Buffer.from(
      generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .publicKey.export({ type: 'spki', format: 'pem' })
        .toString(),
    ).toString('base64');
    const policy = { rootOfTrust: { policyType: 'PublicKey' as const, publicKey: { keyData } } };
    await h.create<ClusterImagePolicy>(Resources.clusterImagePolicy, {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterImagePolicy',
      metadata: { name: 'signed-apps' },
      spec: { scopes: ['registry.example.com/app'], policy },
    });
    await h.create(Resources.namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a' },
    });
    await h.create<ImagePolicy>(Resources.imagePolicy, {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ImagePolicy',
      metadata: { name: 'team', namespace: 'team-a' },
      spec: { scopes: ['registry.example.com/app/web', 'team.example.com'], policy },
    });
    const workerConfig = () =>
      h.get<MachineConfig>(Resources.machineConfig, '99-worker-generated-registries');
    await eventually(
      'the team-a crio policy',
      async () => fileText(await workerConfig(), '/etc/crio/policies/team-a.json') !== undefined,
    );
    const mc = await workerConfig();
    const signed = [
      { type: 'sigstoreSigned', keyData, signedIdentity: { type: 'matchRepoDigestOrExact' } },
    ];
    expect(JSON.parse(fileText(mc, '/etc/containers/policy.json') ?? '')).toEqual({
      default: [{ type: 'insecureAcceptAnything' }],
      transports: {
        atomic: { 'registry.example.com/app': signed },
        docker: { 'registry.example.com/app': signed },
        'docker-daemon': { '': [{ type: 'insecureAcceptAnything' }] },
      },
    });
    // the ICSP mirrors registry.example.com/app: signatures are looked up there too
    expect(fileText(mc, '/etc/containers/registries.d/sigstore-registries.yaml')).toBe(
      [
        'docker:',
        '  127.0.0.1:5000/app:',
        '    use-sigstore-attachments: true',
        '  registry.example.com/app:',
        '    use-sigstore-attachments: true',
        '  team.example.com:',
        '    use-sigstore-attachments: true',
        '',
      ].join('\n'),
    );
    const team = JSON.parse(fileText(mc, '/etc/crio/policies/team-a.json') ?? '') as {
      transports: { docker: Record<string, unknown> };
    };
    expect(Object.keys(team.transports.docker)).toEqual([
      'registry.example.com/app',
      'team.example.com',
    ]);
    const teamPolicy = () => h.get<ImagePolicy>(Resources.imagePolicy, 'team', 'team-a');
    await eventually(
      'the ImagePolicy condition',
      async () => (await teamPolicy()).status?.conditions !== undefined,
    );
    expect((await teamPolicy()).status?.conditions?.[0]).toMatchObject({
      type: 'Pending',
      status: 'False',
      reason: 'ConflictScopes',
      message:
        'has conflicting scope(s) ["registry.example.com/app/web"] that equal to or nest inside existing clusterimagepolicy, only policy from clusterimagepolicy scope(s) will be applied',
      observedGeneration: 1,
    });
  });
});

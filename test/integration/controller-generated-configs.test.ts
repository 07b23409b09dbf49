/**
 * The template, kubelet config and container runtime config controllers (with render) against a
 * real `mco apiserver`, using the repository's templates: the ControllerConfig becomes the
 * `00-`/`01-` MachineConfigs and TemplateController* conditions; a KubeletConfig becomes
 * `99-<pool>-generated-kubelet[-N]` (suffix annotation, finalizer, Success condition), forbidden
 * fields give Failure conditions and no MachineConfig (and hold the pool's render gate), deleting
 * the KubeletConfig deletes its MachineConfig; a ContainerRuntimeConfig becomes CRI-O drop-ins.
 */
import { withoutChangeStamp } from '../support/change-stamp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContainerRuntimeConfig } from '../../src/api/machineconfiguration/v1/container-runtime-config.js';
import type { ControllerConfig } from '../../src/api/machineconfiguration/v1/controller-config.js';
import type { KubeletConfig } from '../../src/api/machineconfiguration/v1/kubelet-config.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import { Resources } from '../../src/api/resource-refs.js';
import { defaultTemplatesDir, loadTemplates } from '../../src/cli/load-templates.js';
import { parseDataUrl } from '../../src/ignition/data-url.js';
import { McoVersion } from '../../src/version.js';
import { pool as makePool } from '../support/machine-configs.js';
import { ControllerHarness, eventually } from './controller-harness.js';

let h: ControllerHarness;
const poolLabel = 'pools.operator.machineconfiguration.openshift.io/worker';

beforeAll(async () => {
  h = await ControllerHarness.start();
  h.run({
    only: ['template', 'kubelet-config', 'container-runtime-config', 'render'],
    templates: loadTemplates(defaultTemplatesDir()),
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

function lastCondition(o: { status?: { conditions?: { type: string; message?: string }[] } }) {
  const c = o.status?.conditions ?? [];
  return c[c.length - 1];
}

async function kubelet(name: string, spec: KubeletConfig['spec']): Promise<KubeletConfig> {
  return h.create<KubeletConfig>(Resources.kubeletConfig, {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'KubeletConfig',
    metadata: { name },
    spec: { machineConfigPoolSelector: { matchLabels: { [poolLabel]: '' } }, ...spec },
  });
}

describe('the template controller', () => {
  it('generates the base MachineConfigs from the ControllerConfig and completes it', async () => {
    const cc = await h.create<ControllerConfig>(Resources.controllerConfig, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'ControllerConfig',
      metadata: {
        name: 'machine-config-controller',
        annotations: {
          'machineconfiguration.openshift.io/generated-by-version': McoVersion.raw,
          'machineconfiguration.openshift.io/release-image-version': '4.99.0-test',
        },
      },
      spec: {
        clusterDNSIP: '172.30.0.10',
        cloudProviderConfig: '',
        kubeAPIServerServingCAData: '',
        rootCAData: '',
        cloudProviderCAData: null,
        additionalTrustBundle: null,
        images: {},
        releaseImage: 'quay.io/test/release:latest',
        baseOSContainerImage: 'quay.io/test/os:1',
        baseOSExtensionsContainerImage: '',
        proxy: null,
        infra: null,
        dns: null,
        ipFamilies: 'IPv4',
        network: null,
      },
    });
    const expected = [
      '00-master',
      '00-worker',
      '01-master-container-runtime',
      '01-master-kubelet',
      '01-worker-container-runtime',
      '01-worker-kubelet',
    ];
    await eventually('ControllerConfig completed', async () => {
      const c = await h.get<ControllerConfig>(
        Resources.controllerConfig,
        'machine-config-controller',
      );
      return (
        c.status?.conditions?.find((x) => x.type === 'TemplateControllerCompleted')?.status ===
        'True'
      );
    });
    const done = await h.get<ControllerConfig>(
      Resources.controllerConfig,
      'machine-config-controller',
    );
    expect(done.status?.observedGeneration).toBe(done.metadata.generation);
    expect(
      Object.fromEntries(
        (done.status?.conditions ?? []).map((c) => [c.type, [c.status, c.message]]),
      ),
    ).toEqual({
      TemplateControllerCompleted: [
        'True',
        `sync completed towards (${done.metadata.generation ?? 0}) generation using controller version ${McoVersion.raw}`,
      ],
      TemplateControllerRunning: ['False', ''],
      TemplateControllerFailing: ['False', ''],
    });
    for (const name of expected) {
      const m = await h.get<MachineConfig>(Resources.machineConfig, name);
      expect(
        m.metadata.annotations?.[
          'machineconfiguration.openshift.io/generated-by-controller-version'
        ],
      ).toBe(McoVersion.hash);
      expect(m.metadata.ownerReferences?.[0]).toMatchObject({
        kind: 'ControllerConfig',
        name: 'machine-config-controller',
        uid: cc.metadata.uid,
        controller: true,
      });
    }
    // An edited generated config is put back.
    const kubeletMc = await h.get<MachineConfig>(Resources.machineConfig, '01-worker-kubelet');
    await h.admin.update(Resources.machineConfig, {
      ...kubeletMc,
      spec: { ...kubeletMc.spec, kernelArguments: ['x'] },
    });
    await eventually('01-worker-kubelet restored', async () => {
      const m = await h.get<MachineConfig>(Resources.machineConfig, '01-worker-kubelet');
      return m.spec?.kernelArguments === undefined || m.spec.kernelArguments?.length === 0;
    });
  });
});

describe('the kubelet config controller', () => {
  it('generates 99-worker-generated-kubelet with the user fields merged into the template kubelet.conf', async () => {
    const p = makePool('worker');
    await h.create(Resources.machineConfigPool, {
      ...p,
      metadata: { ...p.metadata, labels: { [poolLabel]: '' } },
    });
    await eventually(
      'worker rendered',
      async () => ((await h.pool('worker')).spec.configuration?.name ?? '') !== '',
    );
    const kc = await kubelet('max-pods', { kubeletConfig: { maxPods: 100 } });
    await eventually(
      'the generated MachineConfig',
      async () =>
        (await h.tryGet(Resources.machineConfig, '99-worker-generated-kubelet')) !== undefined,
    );
    const m = await h.get<MachineConfig>(Resources.machineConfig, '99-worker-generated-kubelet');
    expect(m.metadata.labels).toEqual({ 'machineconfiguration.openshift.io/role': 'worker' });
    expect(withoutChangeStamp(m.metadata.annotations)).toEqual({
      'machineconfiguration.openshift.io/generated-by-controller-version': McoVersion.hash,
    });
    expect(m.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'KubeletConfig',
        name: 'max-pods',
        uid: kc.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(fileText(m, '/etc/kubernetes/kubelet.conf')).toBe(
      [
        'apiVersion: kubelet.config.k8s.io/v1beta1',
        'authentication:',
        '  anonymous:',
        '    enabled: false',
        '  webhook:',
        '    enabled: true',
        '  x509:',
        '    clientCAFile: /etc/kubernetes/kubelet-ca.crt',
        'authorization:',
        '  mode: Webhook',
        'cgroupDriver: systemd',
        'clusterDNS:',
        '- 172.30.0.10',
        'clusterDomain: cluster.local',
        'containerRuntimeEndpoint: unix:///var/run/crio/crio.sock',
        'kind: KubeletConfiguration',
        'maxPods: 100',
        'rotateCertificates: true',
        'serializeImagePulls: false',
        'staticPodPath: /etc/kubernetes/manifests',
        '',
      ].join('\n'),
    );
    await eventually('Success, finalizer and suffix on the KubeletConfig', async () => {
      const k = await h.get<KubeletConfig>(Resources.kubeletConfig, 'max-pods');
      return (
        lastCondition(k)?.type === 'Success' &&
        (k.metadata.finalizers ?? []).join() === '99-worker-generated-kubelet' &&
        k.metadata.annotations?.['machineconfiguration.openshift.io/mc-name-suffix'] === ''
      );
    });
    await eventually('the pool renders the generated kubelet config', async () =>
      ((await h.pool('worker')).spec.configuration?.source ?? []).some(
        (s) => s.name === '99-worker-generated-kubelet',
      ),
    );
  });

  it('a second KubeletConfig gets the -1 name with the log-level drop-in', async () => {
    await kubelet('log-level', { logLevel: 4 });
    await eventually(
      '99-worker-generated-kubelet-1',
      async () =>
        (await h.tryGet(Resources.machineConfig, '99-worker-generated-kubelet-1')) !== undefined,
    );
    const m = await h.get<MachineConfig>(Resources.machineConfig, '99-worker-generated-kubelet-1');
    expect(fileText(m, '/etc/systemd/system/kubelet.service.d/20-logging.conf')).toBe(
      '[Service]\nEnvironment="KUBELET_LOG_LEVEL=4"\n',
    );
    await eventually(
      'suffix annotation 1',
      async () =>
        (await h.get<KubeletConfig>(Resources.kubeletConfig, 'log-level')).metadata.annotations?.[
          'machineconfiguration.openshift.io/mc-name-suffix'
        ] === '1',
    );
  });

  it.each([
    [
      'cgroupDriver',
      { cgroupDriver: 'systemd' },
      'KubeletConfiguration: cgroupDriver is not allowed to be set, but contains: systemd',
    ],
    [
      'clusterDNS',
      { clusterDNS: ['1.2.3.4', '5.6.7.8'] },
      'KubeletConfiguration: clusterDNS is not allowed to be set, but contains: [1.2.3.4 5.6.7.8]',
    ],
    [
      'featureGates',
      { featureGates: { B: false, A: true } },
      'KubeletConfiguration: featureGates is not allowed to be set, but contains: map[A:true B:false]',
    ],
    [
      'failSwapOn',
      { failSwapOn: false },
      'KubeletConfiguration: failSwapOn is not allowed to be set, but contains: false',
    ],
    [
      'swapBehavior',
      { memorySwap: { swapBehavior: 'LimitedSwap' } },
      'KubeletConfiguration: swapBehavior is not allowed to be set, but contains: LimitedSwap',
    ],
  ])(
    'refuses %s with a Failure condition and no MachineConfig',
    async (field, kubeletConfig, message) => {
      const name = `bad-${field.toLowerCase()}`;
      await kubelet(name, { kubeletConfig });
      await eventually(`Failure on ${name}`, async () => {
        const k = await h.get<KubeletConfig>(Resources.kubeletConfig, name);
        const c = lastCondition(k);
        return c?.type === 'Failure' && c.message === `Error: ${message}`;
      });
      const k = await h.get<KubeletConfig>(Resources.kubeletConfig, name);
      expect(k.metadata.finalizers).toBeUndefined();
      expect(
        await h.tryGet(Resources.machineConfig, '99-worker-generated-kubelet-2'),
      ).toBeUndefined();
      await h.remove(Resources.kubeletConfig, name);
      await eventually(
        `${name} gone`,
        async () => (await h.tryGet(Resources.kubeletConfig, name)) === undefined,
      );
    },
  );

  it('deleting a KubeletConfig deletes its MachineConfig, then the config goes', async () => {
    await h.remove(Resources.kubeletConfig, 'log-level');
    await eventually(
      'both gone',
      async () =>
        (await h.tryGet(Resources.machineConfig, '99-worker-generated-kubelet-1')) === undefined &&
        (await h.tryGet(Resources.kubeletConfig, 'log-level')) === undefined,
    );
    expect(await h.tryGet(Resources.machineConfig, '99-worker-generated-kubelet')).toBeDefined();
  });
});

describe('the container runtime config controller', () => {
  it('generates 99-worker-generated-containerruntime with CRI-O drop-ins; refuses bad values', async () => {
    await h.create<ContainerRuntimeConfig>(Resources.containerRuntimeConfig, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'ContainerRuntimeConfig',
      metadata: { name: 'pids' },
      spec: {
        machineConfigPoolSelector: { matchLabels: { [poolLabel]: '' } },
        containerRuntimeConfig: { pidsLimit: 2048, logSizeMax: '10G' },
      },
    });
    await eventually(
      '99-worker-generated-containerruntime',
      async () =>
        (await h.tryGet(Resources.machineConfig, '99-worker-generated-containerruntime')) !==
        undefined,
    );
    const m = await h.get<MachineConfig>(
      Resources.machineConfig,
      '99-worker-generated-containerruntime',
    );
    expect(fileText(m, '/etc/crio/crio.conf.d/01-ctrcfg-pidsLimit')).toBe(
      '[crio]\n  [crio.runtime]\n    pids_limit = 2048\n',
    );
    expect(fileText(m, '/etc/crio/crio.conf.d/01-ctrcfg-logSizeMax')).toBe(
      '[crio]\n  [crio.runtime]\n    log_size_max = 10000000000\n',
    );
    await h.create<ContainerRuntimeConfig>(Resources.containerRuntimeConfig, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'ContainerRuntimeConfig',
      metadata: { name: 'bad-pids' },
      spec: {
        machineConfigPoolSelector: { matchLabels: { [poolLabel]: '' } },
        containerRuntimeConfig: { pidsLimit: 10 },
      },
    });
    await eventually('Failure on bad-pids', async () => {
      const c = lastCondition(
        await h.get<ContainerRuntimeConfig>(Resources.containerRuntimeConfig, 'bad-pids'),
      );
      return c?.type === 'Failure' && c.message === 'Error: invalid PidsLimit 10';
    });
  });
});

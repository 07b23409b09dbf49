/**
 * The ControllerConfig filled from the cluster's configuration objects, end to end through real
 * processes: `mco apiserver`, `mco operator` and `mco controller` (template and render
 * controllers, the shipped templates). Without Infrastructure, Network, DNS or Proxy the
 * ControllerConfig carries the flags' facts and nulls, and nodes get a proxy.env with no proxy;
 * then:
 *
 * - Infrastructure, Network and DNS `cluster` appear: `infra`, `dns`, the cluster DNS IP of the
 *   service network and its IP families reach the ControllerConfig, and the kubelet config and
 *   `/etc/kubernetes/apiserver-url.env` of the rendered worker config follow;
 * - a Proxy whose status is set (as the network operator sets it): the ControllerConfig's `proxy`
 *   is that status (not the spec), its `trustedCA` bundle joins `additionalTrustBundle`, and the
 *   worker pool's rendered config gets the proxy in proxy.env;
 * - the Proxy's status changes: so do the ControllerConfig and the rendered config, and then the
 *   operator writes nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { DNS } from '../../src/api/config/v1/dns.js';
import type { Infrastructure } from '../../src/api/config/v1/infrastructure.js';
import type { Network } from '../../src/api/config/v1/network.js';
import type { Proxy } from '../../src/api/config/v1/proxy.js';
import type { ConfigMap } from '../../src/api/core/v1/config-map.js';
import type { ControllerConfig } from '../../src/api/machineconfiguration/v1/controller-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import { Resources } from '../../src/api/resource-refs.js';
import { parseDataUrl } from '../../src/ignition/data-url.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { startApiServer, type ApiServerProcess } from '../e2e/apiserver-harness.js';
import { requireBuilt } from '../e2e/mcs-support.js';
import { McoProcess } from '../support/mco-processes.js';
import { sleep, until } from '../support/until.js';

const Namespace = 'openshift-machine-config-operator';
const Release = '4.17.0';
const Minute = 60_000;

let api: ApiServerProcess;
let admin: ResourceClient;
let operator: McoProcess;
let controller: McoProcess;

const controllerConfig = () =>
  admin.get<ControllerConfig>(Resources.controllerConfig, 'machine-config-controller');

type FileLike = { path: string; contents?: { source?: string } };

/** A file of the worker pool's current rendered config. */
async function renderedFile(path: string): Promise<string | undefined> {
  const pool = await admin.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
  const name = pool.spec.configuration?.name;
  if (name === undefined || name === '') return undefined;
  const mc = await admin.get<MachineConfig>(Resources.machineConfig, name);
  const files =
    (mc.spec?.config as { storage?: { files?: FileLike[] } } | undefined)?.storage?.files ?? [];
  const f = files.find((x) => x.path === path);
  if (f === undefined) return undefined;
  const url = parseDataUrl(f.contents?.source ?? '');
  return url.ok ? new TextDecoder().decode(url.value.data) : undefined;
}

/** Waits until the worker pool's rendered `path` satisfies `check`; returns its text. */
function renderedUntil(what: string, path: string, check: (text: string) => boolean) {
  return until(
    what,
    async () => {
      const text = await renderedFile(path).catch(() => undefined);
      return text !== undefined && check(text) ? text : undefined;
    },
    { timeoutMs: 2 * Minute, intervalMs: 250 },
  );
}

async function setProxyStatus(status: Proxy['status']): Promise<void> {
  const proxy = await admin.get<Proxy>(Resources.proxy, 'cluster');
  await admin.updateStatus<Proxy>(Resources.proxy, { ...proxy, ...(status ? { status } : {}) });
}

beforeAll(async () => {
  requireBuilt();
  api = await startApiServer({ storage: 'memory' });
  admin = createKubeClient({ kubeconfigPath: api.kubeconfig('admin') });
  const cm: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: Namespace },
    data: {
      baseOSContainerImage: 'quay.io/openshift/os@sha256:1111',
      baseOSExtensionsContainerImage: '',
      osImageURL: '',
      releaseVersion: Release,
    },
  };
  await admin.create(Resources.configMap, cm);
  operator = new McoProcess('operator', [
    'operator',
    '--kubeconfig',
    api.kubeconfig('operator'),
    '--release-version',
    Release,
    '--operator-image',
    'quay.io/openshift/mco:test',
    '--mcs-url',
    'https://api-int.example.com:22623',
    '--mcs-ca-file',
    `${api.dataDir}/ca.crt`,
    '--poll-interval',
    '200ms',
  ]);
  controller = new McoProcess('controller', [
    'controller',
    '--kubeconfig',
    api.kubeconfig('controller'),
    '--controllers',
    'template,render',
    '--render-delay',
    '100ms',
  ]);
}, 2 * Minute);

afterAll(async () => {
  // each is unset when beforeAll failed before starting it
  /* eslint-disable @typescript-eslint/no-unnecessary-condition */
  await operator?.stop('SIGKILL');
  await controller?.stop('SIGKILL');
  await api?.dispose();
  /* eslint-enable @typescript-eslint/no-unnecessary-condition */
});

describe(
  'the ControllerConfig from Infrastructure, Network, DNS and Proxy',
  { timeout: 4 * Minute },
  () => {
    it('without them: the flags’ facts and nulls; proxy.env has no proxy', async () => {
      const text = await renderedUntil(
        'a rendered worker config',
        '/etc/mco/proxy.env',
        () => true,
      );
      expect(text).not.toMatch(/PROXY=/);
      expect(await renderedFile('/etc/kubernetes/apiserver-url.env')).toBeUndefined();
      const cc = await controllerConfig();
      expect(cc.spec).toMatchObject({
        clusterDNSIP: '172.30.0.10',
        ipFamilies: 'IPv4',
        proxy: null,
        infra: null,
        dns: null,
      });
    });

    it('Infrastructure, Network and DNS: infra, dns, the DNS IP and families, and what the templates make of them', async () => {
      const infra = await admin.create<Infrastructure>(Resources.infrastructure, {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Infrastructure',
        metadata: { name: 'cluster' },
        spec: { platformSpec: { type: 'None' } },
      });
      await admin.updateStatus<Infrastructure>(Resources.infrastructure, {
        ...infra,
        status: {
          infrastructureName: 'test',
          platform: 'None',
          apiServerURL: 'https://api.example.com:6443',
          apiServerInternalURI: 'https://api-int.example.com:6443',
          etcdDiscoveryDomain: 'example.com',
          controlPlaneTopology: 'HighlyAvailable',
        },
      });
      await admin.create<Network>(Resources.network, {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Network',
        metadata: { name: 'cluster' },
        spec: { serviceNetwork: ['fd02::/112', '172.31.0.0/16'], networkType: 'OVNKubernetes' },
      });
      await admin.create<DNS>(Resources.dns, {
        apiVersion: 'config.openshift.io/v1',
        kind: 'DNS',
        metadata: { name: 'cluster' },
        spec: { baseDomain: 'example.com' },
      });
      const kubelet = await renderedUntil(
        'the kubelet config with the new cluster DNS IP',
        '/etc/kubernetes/kubelet.conf',
        (t) => t.includes('fd02::a'),
      );
      expect(kubelet).toContain('clusterDNS:\n  - fd02::a\n');
      expect(await renderedFile('/etc/kubernetes/apiserver-url.env')).toBe(
        "KUBERNETES_SERVICE_HOST='api-int.example.com'\nKUBERNETES_SERVICE_PORT='6443'\n",
      );
      const cc = await controllerConfig();
      expect(cc.spec).toMatchObject({
        clusterDNSIP: 'fd02::a',
        ipFamilies: 'DualStackIPv6Primary',
        networkType: 'OVNKubernetes',
        platform: 'none',
        etcdDiscoveryDomain: 'example.com',
        dns: { kind: 'DNS', spec: { baseDomain: 'example.com' } },
        proxy: null,
      });
      // upstream fills the platform status from the legacy field
      expect(cc.spec.infra?.status?.platformStatus).toEqual({ type: 'None' });
    });

    it('a Proxy: its status, not its spec, reaches the ControllerConfig and the rendered proxy.env', async () => {
      await admin
        .create(Resources.namespace, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'openshift-config' },
        })
        .catch(() => undefined);
      await admin.create<ConfigMap>(Resources.configMap, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'proxy-ca', namespace: 'openshift-config' },
        data: {
          'ca-bundle.crt': '-----BEGIN CERTIFICATE-----\nPROXY\n-----END CERTIFICATE-----\n',
        },
      });
      await admin.create<Proxy>(Resources.proxy, {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Proxy',
        metadata: { name: 'cluster' },
        spec: { httpProxy: 'http://spec-only.example.com:3128', trustedCA: { name: 'proxy-ca' } },
      });
      await setProxyStatus({
        httpProxy: 'http://proxy.example.com:3128',
        noProxy: '.cluster.local,172.31.0.0/16',
      });
      const env = await renderedUntil('proxy.env with the proxy', '/etc/mco/proxy.env', (t) =>
        t.includes('HTTP_PROXY='),
      );
      expect(env.split('\n').filter((l) => !l.startsWith('#'))).toEqual([
        'HTTP_PROXY=http://proxy.example.com:3128',
        'NO_PROXY=.cluster.local,172.31.0.0/16',
        '',
      ]);
      expect((await controllerConfig()).spec.proxy).toEqual({
        httpProxy: 'http://proxy.example.com:3128',
        noProxy: '.cluster.local,172.31.0.0/16',
      });
      // the Proxy's trusted CA joins the additional trust bundle
      expect(
        Buffer.from(
          (await controllerConfig()).spec.additionalTrustBundle ?? '',
          'base64',
        ).toString(),
      ).toBe('-----BEGIN CERTIFICATE-----\nPROXY\n-----END CERTIFICATE-----\n');
    });

    it('the Proxy’s status changes: the ControllerConfig and the rendered config follow', async () => {
      await setProxyStatus({ httpsProxy: 'https://proxy2.example.com:3129' });
      const env = await renderedUntil('proxy.env with the new proxy', '/etc/mco/proxy.env', (t) =>
        t.includes('HTTPS_PROXY=https://proxy2.example.com:3129'),
      );
      expect(env).not.toContain('HTTP_PROXY=');
      expect((await controllerConfig()).spec.proxy).toEqual({
        httpsProxy: 'https://proxy2.example.com:3129',
      });
    });

    it('then the operator leaves the ControllerConfig alone (the embedded objects round-trip)', async () => {
      const before = (await controllerConfig()).metadata.generation;
      await sleep(3000);
      expect((await controllerConfig()).metadata.generation).toBe(before);
    });
  },
);

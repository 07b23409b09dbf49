import { describe, expect, it } from 'vitest';
import type { Infrastructure } from '../../api/config/v1/infrastructure.js';
import type { Network } from '../../api/config/v1/network.js';
import { applyControllerConfig } from './controller-config.js';
import {
  clusterDnsIp,
  discoveredSpec,
  ipFamilies,
  type ClusterConfigObjects,
} from './discovered-cluster-config.js';

// Cases from upstream's pkg/operator/render_test.go (TestClusterDNSIP, TestIPFamilies,
// TestCreateDiscoveredControllerConfigSpec).

describe('clusterDnsIp (TestClusterDNSIP)', () => {
  it.each([
    ['192.168.2.0/20', '192.168.0.10'],
    ['2001:db8::/32', '2001:db8::a'],
    ['172.30.0.0/16', '172.30.0.10'],
    ['fd02::/112', 'fd02::a'],
  ])('%s → %s', (range, ip) => {
    expect(clusterDnsIp(range)).toEqual({ ok: true, value: ip });
  });

  it.each([
    ['192.168.1.254/32', 'prefix of 32 does not accommodate a host numbered 10'],
    ['192.168.1.1/99999999', 'invalid CIDR address: 192.168.1.1/99999999'],
    ['not-a-cidr', 'invalid CIDR address: not-a-cidr'],
  ])('%s fails: %s', (range, message) => {
    expect(clusterDnsIp(range)).toEqual({ ok: false, error: message });
  });
});

describe('ipFamilies (TestIPFamilies)', () => {
  it.each([
    [['192.168.2.0/20'], 'IPv4'],
    [['2001:db8::/32'], 'IPv6'],
    [['192.168.2.0/20', '2001:db8::/32'], 'DualStack'],
    [['2001:db8::/32', '192.168.2.0/20'], 'DualStackIPv6Primary'],
  ])('%j → %s', (ranges, families) => {
    expect(ipFamilies(ranges)).toEqual({ ok: true, value: families });
  });

  it('none: upstream’s error', () => {
    expect(ipFamilies([])).toEqual({
      ok: false,
      error: 'could not determine cluster IP families from config',
    });
  });
});

const infra = (status: Infrastructure['status']): Infrastructure => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'Infrastructure',
  metadata: { name: 'cluster' },
  spec: {},
  ...(status === undefined ? {} : { status }),
});
const network = (serviceNetwork: string[], status?: Network['status']): Network => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'Network',
  metadata: { name: 'cluster' },
  spec: { serviceNetwork, networkType: 'OVNKubernetes' },
  ...(status === undefined ? {} : { status }),
});
const dns: ClusterConfigObjects['dns'] = {
  apiVersion: 'config.openshift.io/v1',
  kind: 'DNS',
  metadata: { name: 'cluster' },
  spec: { baseDomain: 'tt.testing' },
};

describe('discoveredSpec (TestCreateDiscoveredControllerConfigSpec)', () => {
  it('AWS with a proxy: platform, etcd domain, DNS IP, families, the proxy status, the DNS object', () => {
    const r = discoveredSpec({
      infrastructure: infra({
        platformStatus: { type: 'AWS' },
        etcdDiscoveryDomain: 'tt.testing',
      }),
      network: network(['192.168.1.1/24']),
      proxy: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Proxy',
        metadata: { name: 'cluster' },
        spec: { httpProxy: 'ignored.spec' },
        status: { httpProxy: 'test.proxy' },
      },
      dns,
    });
    if (!r.ok) throw new Error(r.error);
    expect(r.value).toMatchObject({
      clusterDNSIP: '192.168.1.10',
      ipFamilies: 'IPv4',
      networkType: 'OVNKubernetes',
      platform: 'aws',
      etcdDiscoveryDomain: 'tt.testing',
      proxy: { httpProxy: 'test.proxy' },
      dns: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'DNS',
        spec: { baseDomain: 'tt.testing' },
      },
    });
    expect(r.value.infra?.status?.platformStatus?.type).toBe('AWS');
    expect(r.value.infra?.kind).toBe('Infrastructure');
  });

  it.each([
    [
      'an unparsable service network',
      ['192.168.1.1/99999999'],
      'invalid CIDR address: 192.168.1.1/99999999',
    ],
    ['no service network', [], 'service cidr is empty in Network'],
  ])('%s fails', (_name, services, message) => {
    expect(discoveredSpec({ network: network(services), dns })).toEqual({
      ok: false,
      error: message,
    });
  });

  it('an empty platformStatus becomes None; the legacy status.platform fills a missing one', () => {
    const empty = discoveredSpec({ infrastructure: infra({ platformStatus: {} }) });
    expect(empty.ok && empty.value.infra?.status?.platformStatus).toEqual({ type: 'None' });
    expect(empty.ok && empty.value.platform).toBe('none');
    const legacy = discoveredSpec({ infrastructure: infra({ platform: 'AWS' }) });
    expect(legacy.ok && legacy.value.infra?.status?.platformStatus).toEqual({ type: 'AWS' });
    const none = discoveredSpec({ infrastructure: infra(undefined) });
    expect(none.ok && none.value.infra?.status?.platformStatus).toEqual({ type: 'None' });
  });

  it('network type: the status once the network operator set it; during a migration, the migration’s and its MTU', () => {
    const fromStatus = discoveredSpec({
      network: network(['172.30.0.0/16'], { networkType: 'OpenShiftSDN' }),
    });
    expect(fromStatus.ok && fromStatus.value.networkType).toBe('OpenShiftSDN');
    const migrating = discoveredSpec({
      network: network(['172.30.0.0/16'], {
        networkType: 'OpenShiftSDN',
        migration: { networkType: 'OVNKubernetes', mtu: { machine: { from: 1500, to: 9000 } } },
      }),
    });
    expect(migrating.ok && migrating.value).toMatchObject({
      networkType: 'OVNKubernetes',
      network: { mtuMigration: { machine: { from: 1500, to: 9000 } } },
    });
  });

  it('a Proxy whose status is empty sets no proxy; absent objects decide nothing', () => {
    const r = discoveredSpec({
      proxy: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Proxy',
        metadata: { name: 'cluster' },
        spec: { httpProxy: 'http://only-in-spec:3128' },
      },
    });
    expect(r).toEqual({ ok: true, value: {} });
  });
});

describe('applyControllerConfig with discovered fields', () => {
  const input = {
    osImages: {
      baseOSContainerImage: 'quay.io/os:1',
      baseOSExtensionsContainerImage: '',
      osImageURL: '',
      releaseVersion: '4.17.0',
    },
    releaseVersion: '4.17.0',
    operatorVersion: '0.1.0',
    rootCAData: 'Q0E=',
    kubeAPIServerServingCAData: 'Q0E=',
    cluster: { clusterDNSIP: '10.0.0.10', ipFamilies: 'IPv4' },
  };

  it('the cluster’s objects win over the flags; without them the flags stand and the rest is null', () => {
    const bare = applyControllerConfig(undefined, input);
    expect(bare?.spec).toMatchObject({
      clusterDNSIP: '10.0.0.10',
      proxy: null,
      infra: null,
      dns: null,
      network: null,
    });
    const found = discoveredSpec({
      network: network(['fd02::/112', '172.30.0.0/16']),
      proxy: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Proxy',
        metadata: { name: 'cluster' },
        spec: {},
        status: { httpsProxy: 'https://p:3129' },
      },
    });
    if (!found.ok) throw new Error(found.error);
    const cc = applyControllerConfig(bare, { ...input, discovered: found.value });
    expect(cc?.spec).toMatchObject({
      clusterDNSIP: 'fd02::a',
      ipFamilies: 'DualStackIPv6Primary',
      networkType: 'OVNKubernetes',
      proxy: { httpsProxy: 'https://p:3129' },
      infra: null,
    });
  });
});

/**
 * The ControllerConfig fields the operator takes from the cluster's configuration objects
 * (docs/reference/cluster-config.md §2; upstream's createDiscoveredControllerConfigSpec): the
 * cluster DNS IP and IP families from Network's service networks, its network type (and an MTU
 * migration), the whole Infrastructure with its platform defaulted, the whole DNS, and the Proxy's
 * status. Upstream requires Infrastructure and Network; here an absent one leaves its fields to the
 * operator's flags, so a cluster without them (a bare API server) still gets a ControllerConfig.
 * Pure.
 */
import type { DNS } from '../../api/config/v1/dns.js';
import type { Infrastructure } from '../../api/config/v1/infrastructure.js';
import type { Network } from '../../api/config/v1/network.js';
import type { Proxy } from '../../api/config/v1/proxy.js';
import type { ControllerConfigSpec } from '../../api/machineconfiguration/v1/controller-config.js';
import { err, ok, type Result } from '../../lib/result.js';

export interface ClusterConfigObjects {
  readonly infrastructure?: Infrastructure | undefined;
  readonly network?: Network | undefined;
  readonly proxy?: Proxy | undefined;
  readonly dns?: DNS | undefined;
}

/** The ControllerConfig spec fields these objects decide; absent ones are not decided here. */
export type DiscoveredSpec = Partial<
  Pick<
    ControllerConfigSpec,
    | 'clusterDNSIP'
    | 'ipFamilies'
    | 'networkType'
    | 'network'
    | 'infra'
    | 'platform'
    | 'etcdDiscoveryDomain'
    | 'dns'
    | 'proxy'
  >
>;

interface Cidr {
  readonly v6: boolean;
  readonly prefix: number;
  readonly base: bigint;
}

const Ipv4 =
  /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;
const Group = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4(ip: string): bigint | undefined {
  if (!Ipv4.test(ip)) return undefined;
  return ip.split('.').reduce((n, octet) => (n << 8n) | BigInt(octet), 0n);
}

/** Eight groups of hex, or fewer around one `::` (the dotted IPv4 tail form is not taken). */
function parseIpv6(ip: string): bigint | undefined {
  const halves = ip.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'));
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill('0'), ...tail];
  if (!all.every((g) => Group.test(g))) return undefined;
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** Go's net.ParseCIDR; the address masked to the network. IPv4-in-IPv6 forms are not taken. */
function parseCidr(s: string): Cidr | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  const v4 = parseIpv4(ip);
  const address = v4 ?? parseIpv6(ip);
  if (address === undefined) return undefined;
  const v6 = v4 === undefined;
  const width = v6 ? 128 : 32;
  if (!/^[0-9]{1,3}$/.test(bits) || Number(bits) > width) return undefined;
  const prefix = Number(bits);
  const hostBits = BigInt(width - prefix);
  return { v6, prefix, base: (address >> hostBits) << hostBits };
}

function formatIp(n: bigint, v6: boolean): string {
  if (!v6) return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (n >> BigInt((7 - i) * 16)) & 0xffffn);
  // Go (RFC 5952): the longest run of two or more zero groups, the first of equals, becomes "::"
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0n) j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}

/** Upstream's clusterDNSIP: the 10th host of the service network. */
export function clusterDnsIp(range: string): Result<string, string> {
  const cidr = parseCidr(range);
  if (cidr === undefined) return err(`invalid CIDR address: ${range}`);
  const hostBits = (cidr.v6 ? 128 : 32) - cidr.prefix;
  if (10n > (1n << BigInt(hostBits)) - 1n)
    return err(`prefix of ${cidr.prefix} does not accommodate a host numbered 10`);
  return ok(formatIp(cidr.base + 10n, cidr.v6));
}

/** Upstream's ipFamilies (a range that is no IPv6 CIDR counts as IPv4, as there). */
export function ipFamilies(ranges: readonly string[]): Result<string, string> {
  const v6 = ranges.map((r) => parseCidr(r)?.v6 === true);
  const ipv6 = v6.some((x) => x);
  const ipv4 = v6.some((x) => !x);
  if (ipv4 && ipv6) return ok(v6[0] === true ? 'DualStackIPv6Primary' : 'DualStack');
  if (ipv4) return ok('IPv4');
  if (ipv6) return ok('IPv6');
  return err('could not determine cluster IP families from config');
}

function networkFields(network: Network): Result<DiscoveredSpec, string> {
  const services = network.spec.serviceNetwork ?? [];
  const first = services[0];
  if (first === undefined) return err('service cidr is empty in Network');
  const dnsIp = clusterDnsIp(first);
  if (!dnsIp.ok) return dnsIp;
  const families = ipFamilies(services);
  if (!families.ok) return families;
  const status = network.status ?? {};
  const migration = status.migration;
  const fields: DiscoveredSpec = { clusterDNSIP: dnsIp.value, ipFamilies: families.value };
  if ((status.networkType ?? '') === '')
    return ok({ ...fields, networkType: network.spec.networkType ?? '' });
  if (migration !== undefined)
    return ok({
      ...fields,
      networkType: migration.networkType ?? '',
      ...(migration.mtu === undefined ? {} : { network: { mtuMigration: migration.mtu } }),
    });
  return ok({ ...fields, networkType: status.networkType ?? '' });
}

function infrastructureFields(infrastructure: Infrastructure): DiscoveredSpec {
  const status = infrastructure.status ?? {};
  const legacy = status.platform ?? '';
  let platformStatus = status.platformStatus;
  if (platformStatus === undefined && legacy !== '') platformStatus = { type: legacy };
  else if (platformStatus === undefined || (platformStatus.type ?? '') === '')
    platformStatus = { type: 'None' };
  const type = platformStatus.type ?? '';
  const infra = {
    ...infrastructure,
    apiVersion: 'config.openshift.io/v1',
    kind: 'Infrastructure',
    status: { ...status, platformStatus },
  };
  return {
    infra,
    platform: type === '' ? 'none' : type.toLowerCase(),
    ...(status.etcdDiscoveryDomain === undefined
      ? {}
      : { etcdDiscoveryDomain: status.etcdDiscoveryDomain }),
  };
}

/** The fields the given objects decide, or upstream's error for a Network it cannot read. */
export function discoveredSpec(objects: ClusterConfigObjects): Result<DiscoveredSpec, string> {
  const network = objects.network === undefined ? ok({}) : networkFields(objects.network);
  if (!network.ok) return network;
  const proxyStatus = objects.proxy?.status ?? {};
  const proxySet = [proxyStatus.httpProxy, proxyStatus.httpsProxy, proxyStatus.noProxy].some(
    (v) => (v ?? '') !== '',
  );
  return ok({
    ...network.value,
    ...(objects.infrastructure === undefined ? {} : infrastructureFields(objects.infrastructure)),
    ...(objects.dns === undefined
      ? {}
      : {
          dns: { ...objects.dns, apiVersion: 'config.openshift.io/v1', kind: 'DNS' },
        }),
    ...(proxySet ? { proxy: { ...proxyStatus } } : {}),
  });
}

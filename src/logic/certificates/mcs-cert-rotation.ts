/**
 * When the machine config server's certificates rotate (upstream's certrotation controller on
 * library-go's certrotation, docs/reference/certificates.md §4): a signer Secret, a CA bundle
 * ConfigMap holding every CA still valid, and the serving Secret the MCS reads its certificate
 * from, all in the MCO's namespace. A certificate is renewed once it is `refresh` old (library-go:
 * 8 of its 10 years), when it expired, and the serving one also when its host names change or its
 * signer is no longer the current one.
 *
 * One difference, on purpose: library-go signs a new serving certificate with a new signer at once,
 * so a machine given a pointer config a moment before (with only the old CA in it) cannot fetch its
 * Ignition. Here the new signer sits in the bundle first, for `propagationMs`, so the pointer
 * configs that follow the bundle trust both CAs before the MCS presents the new one.
 */
import { McoNamespace } from '../../api/machineconfiguration/v1/constants.js';
import type { Infrastructure } from '../../api/config/v1/infrastructure.js';
import { err, ok, type Result } from '../../lib/result.js';
import type { CertificateFacts } from './certificate-facts.js';

export const McsCertificateObjects = {
  namespace: McoNamespace,
  signerSecret: 'machine-config-server-ca',
  bundleConfigMap: 'machine-config-server-ca',
  servingSecret: 'machine-config-server-tls',
} as const;

/** library-go's annotations on the Secrets it rotates. */
export const CertificateAnnotation = {
  notBefore: 'auth.openshift.io/certificate-not-before',
  notAfter: 'auth.openshift.io/certificate-not-after',
  issuer: 'auth.openshift.io/certificate-issuer',
  hostnames: 'auth.openshift.io/certificate-hostnames',
} as const;

/** The signer's name; each new signer's common name is this `@<unix seconds>`, as library-go's. */
export const McsSignerName = 'machine-config.machine-config-server-signer';

const HourMs = 3_600_000;
const YearMs = 365 * 24 * HourMs;

export interface RotationTiming {
  /** How long a new certificate is valid. */
  readonly validityMs: number;
  /** How old a certificate gets before it is renewed. */
  readonly refreshMs: number;
}

export const DefaultMcsRotationTiming: RotationTiming = {
  validityMs: 10 * YearMs,
  refreshMs: 8 * YearMs,
};

/** How long a new signer is in the bundle before the MCS serves a certificate it signed. */
export function propagationMs(timing: RotationTiming): number {
  return Math.min(timing.refreshMs / 4, HourMs);
}

export type Renewal = { readonly renew: false } | { readonly renew: true; readonly reason: string };

const Keep: Renewal = { renew: false };
const renew = (reason: string): Renewal => ({ renew: true, reason });

export function signerRenewal(
  signer: CertificateFacts | undefined,
  now: number,
  timing: RotationTiming,
): Renewal {
  if (signer === undefined) return renew('there is no signer yet');
  if (now >= signer.notAfter) return renew('the signer expired');
  if (now >= signer.notBefore + timing.refreshMs)
    return renew('the signer is past its refresh time');
  return Keep;
}

/** The current signer first, then every other CA of the bundle that has not expired. */
export function nextCaBundle(
  signer: CertificateFacts,
  bundle: readonly CertificateFacts[],
  now: number,
): CertificateFacts[] {
  const seen = new Set([signer.pem]);
  const kept = bundle.filter((c) => {
    if (seen.has(c.pem) || now >= c.notAfter) return false;
    seen.add(c.pem);
    return true;
  });
  return [signer, ...kept];
}

const sameHosts = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');

/** The serving certificate there is, the signer there is and the host names it must name. */
export interface ServingState {
  readonly serving: CertificateFacts | undefined;
  readonly signer: CertificateFacts;
  readonly hosts: readonly string[];
}

export function servingRenewal(
  { serving, signer, hosts }: ServingState,
  now: number,
  timing: RotationTiming,
): Renewal {
  if (serving === undefined) return renew('there is no serving certificate yet');
  if (now >= serving.notAfter) return renew('the serving certificate expired');
  if (!sameHosts(serving.hosts, hosts)) return renew('the host names changed');
  if (now >= serving.notBefore + timing.refreshMs)
    return renew('the serving certificate is past its refresh time');
  if (
    serving.issuerCommonName !== signer.commonName &&
    now >= signer.notBefore + propagationMs(timing)
  )
    return renew('a new signer is in the bundle');
  return Keep;
}

/** When to look again: the next refresh, expiry or end of propagation after `now`. */
export function nextCheck(
  signer: CertificateFacts,
  serving: CertificateFacts,
  timing: RotationTiming,
  now: number,
): number {
  const times = [
    signer.notBefore + timing.refreshMs,
    signer.notAfter,
    serving.notBefore + timing.refreshMs,
    serving.notAfter,
    ...(serving.issuerCommonName === signer.commonName
      ? []
      : [signer.notBefore + propagationMs(timing)]),
  ].filter((t) => t > now);
  return Math.min(...times, now + 24 * HourMs);
}

/** Platforms whose API server has internal IPs the serving certificate must name too. */
const PlatformsWithInternalIps: Readonly<Record<string, string>> = {
  BareMetal: 'baremetal',
  oVirt: 'ovirt',
  OpenStack: 'openstack',
  VSphere: 'vsphere',
  Nutanix: 'nutanix',
};

const NoInternalUrl = 'no APIServerInternalURL found in cluster infrastructure resource';

/**
 * The serving certificate's host names, as upstream's: the host of the Infrastructure's
 * `apiServerInternalURI` (machines reach the MCS at api-int on port 22623), then the platform's
 * `apiServerInternalIPs` where it has them.
 */
export function servingHosts(infra: Infrastructure | undefined): Result<string[], string> {
  const uri = infra?.status?.apiServerInternalURI ?? '';
  if (uri === '') return err(NoInternalUrl);
  let host: string;
  try {
    host = new URL(uri).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return err(
      `the cluster infrastructure's apiServerInternalURI ${JSON.stringify(uri)} is not a URL`,
    );
  }
  if (host === '') return err(NoInternalUrl);
  const platform = infra?.status?.platformStatus;
  const key = PlatformsWithInternalIps[platform?.type ?? ''];
  const perPlatform = key === undefined ? undefined : (platform as Record<string, unknown>)[key];
  const ips = (perPlatform as { apiServerInternalIPs?: unknown } | undefined)?.apiServerInternalIPs;
  const extra = Array.isArray(ips) ? ips.filter((ip): ip is string => typeof ip === 'string') : [];
  return ok([...new Set([host, ...extra])]);
}

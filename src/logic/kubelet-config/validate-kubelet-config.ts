/**
 * Which KubeletConfig specs the controller refuses (upstream validateUserKubeletConfig,
 * docs/reference/api.md §2.5): fields whose change could leave a node unable to come back after a reboot.
 * A refused config gets a Failure condition and generates nothing.
 */
import type { KubeletConfig } from '../../api/machineconfiguration/v1/kubelet-config.js';
import { err, ok, type Result } from '../../lib/result.js';
import { goValue } from './go-format.js';

export type KubeletConfigError =
  | { readonly kind: 'LogLevel'; readonly level: number }
  | { readonly kind: 'Forbidden'; readonly field: string; readonly value: unknown }
  | { readonly kind: 'AutoSizingWithSystemReserved' }
  | { readonly kind: 'SystemReservedCgroup'; readonly reserved: string; readonly system: string };

export function describeKubeletConfigError(e: KubeletConfigError): string {
  switch (e.kind) {
    case 'LogLevel':
      // Upstream prints the *int32 pointer itself; the value is what a reader can use.
      return `KubeletConfig's LogLevel is not valid [1,10]: ${e.level}`;
    case 'Forbidden':
      return `KubeletConfiguration: ${e.field} is not allowed to be set, but contains: ${goValue(e.value)}`;
    case 'AutoSizingWithSystemReserved':
      return 'KubeletConfiguration: autoSizingReserved and systemdReserved cannot be set together';
    case 'SystemReservedCgroup':
      return `KubeletConfiguration: systemReservedCgroup (${e.reserved}) must match systemCgroups (${e.system})`;
  }
}

type Raw = Readonly<Record<string, unknown>>;

function nonEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false || v === 0) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** The user's KubeletConfiguration fields (spec.kubeletConfig), or an empty object. */
export function userKubeletConfiguration(kc: KubeletConfig): Raw {
  return kc.spec.kubeletConfig ?? {};
}

/** Fields the cluster owns: set by the user they are refused. */
function forbiddenField(cfg: Raw): KubeletConfigError | undefined {
  for (const field of ['cgroupDriver', 'clusterDNS', 'clusterDomain', 'featureGates'] as const) {
    if (nonEmpty(cfg[field])) return { kind: 'Forbidden', field, value: cfg[field] };
  }
  if (cfg['failSwapOn'] !== undefined && cfg['failSwapOn'] !== null)
    return { kind: 'Forbidden', field: 'failSwapOn', value: cfg['failSwapOn'] };
  const swap = (cfg['memorySwap'] ?? {}) as Raw;
  if (nonEmpty(swap['swapBehavior']))
    return { kind: 'Forbidden', field: 'swapBehavior', value: swap['swapBehavior'] };
  return undefined;
}

/** The checks that do not depend on the pool, in upstream's order. */
export function validateKubeletConfig(kc: KubeletConfig): Result<void, KubeletConfigError> {
  const level = kc.spec.logLevel;
  if (level !== undefined && (level < 1 || level > 10)) return err({ kind: 'LogLevel', level });
  const cfg = userKubeletConfiguration(kc);
  const forbidden = forbiddenField(cfg);
  if (forbidden !== undefined) return err(forbidden);
  if (nonEmpty(cfg['systemReserved']) && kc.spec.autoSizingReserved === true)
    return err({ kind: 'AutoSizingWithSystemReserved' });
  const reserved =
    typeof cfg['systemReservedCgroup'] === 'string' ? cfg['systemReservedCgroup'] : '';
  const system = typeof cfg['systemCgroups'] === 'string' ? cfg['systemCgroups'] : '';
  if (reserved !== '' && system !== '' && reserved !== system)
    return err({ kind: 'SystemReservedCgroup', reserved, system });
  return ok(undefined);
}

/** Control-plane pools keep their static pods: staticPodPath may only be set on other pools. */
export function validateStaticPodPath(
  kc: KubeletConfig,
  pool: string,
): Result<void, KubeletConfigError> {
  const value = userKubeletConfiguration(kc)['staticPodPath'];
  if ((pool === 'master' || pool === 'arbiter') && nonEmpty(value))
    return err({ kind: 'Forbidden', field: 'staticPodPath', value });
  return ok(undefined);
}

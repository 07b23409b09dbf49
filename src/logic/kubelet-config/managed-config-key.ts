/**
 * The name of the MachineConfig a KubeletConfig or ContainerRuntimeConfig generates for a pool
 * (upstream getManagedKubeletConfigKey / getManagedKeyCtrCfg, docs/reference/api.md §2.5–2.6): the first
 * config of a pool gets `99-<pool>-generated-<kind>`, later ones `…-<N>` with N one above the
 * highest suffix in use, remembered on the config in the `mc-name-suffix` annotation. At most 10.
 */
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { LabelSelector } from '../../api/meta/v1/label-selector.js';
import type { ObjectMeta } from '../../api/meta/v1/object-meta.js';
import {
  isEmptySelector,
  matchesLabelSelector,
} from '../../api/meta/v1/label-selector-matching.js';
import { err, ok, type Result } from '../../lib/result.js';

export type GeneratedKind = 'kubelet' | 'containerruntime';

/** Upstream MaxMCNameSuffix: suffixes 1..9 plus the unsuffixed first name. */
const MaxNameSuffix = 9;

export type ManagedKeyError =
  | { readonly kind: 'MaxReached'; readonly generated: GeneratedKind }
  | { readonly kind: 'BadSuffix'; readonly value: string };

export function describeManagedKeyError(e: ManagedKeyError): string {
  switch (e.kind) {
    case 'MaxReached':
      return e.generated === 'kubelet'
        ? 'max number of supported kubelet config (10) has been reached. Please delete old kubelet configs before retrying'
        : 'max number of supported ctrcfgs (10) has been reached. Please delete old ctrcfgs before retrying';
    case 'BadSuffix':
      return `error converting ${e.value} to int: strconv.Atoi: parsing ${JSON.stringify(e.value)}: invalid syntax`;
  }
}

export interface GeneratingConfig {
  readonly metadata: ObjectMeta;
  readonly spec: { readonly machineConfigPoolSelector?: LabelSelector | undefined };
}

/** The base name, `99-<pool>-generated-<kind>`. */
function generatedBaseName(pool: string, kind: GeneratedKind): string {
  return `99-${pool}-generated-${kind}`;
}

/** A nil or empty selector selects no pool. */
export function selectsPool(config: GeneratingConfig, pool: MachineConfigPool): boolean {
  const selector = config.spec.machineConfigPoolSelector;
  if (selector === undefined || isEmptySelector(selector)) return false;
  return matchesLabelSelector(selector, pool.metadata.labels ?? {});
}

export function managedConfigKey(
  pool: MachineConfigPool,
  config: GeneratingConfig,
  all: readonly GeneratingConfig[],
  kind: GeneratedKind,
): Result<string, ManagedKeyError> {
  const poolName = pool.metadata.name ?? '';
  const base = generatedBaseName(poolName, kind);
  const suffix = config.metadata.annotations?.[Annotation.mcNameSuffix];
  if (suffix !== undefined) return ok(suffix === '' ? base : `${base}-${suffix}`);
  const inPool = all.filter((c) => selectsPool(c, pool));
  const others = inPool.filter((c) => c.metadata.name !== config.metadata.name);
  if (others.length === 0) return ok(base);
  let highest = 0;
  for (const c of inPool) {
    const v = c.metadata.annotations?.[Annotation.mcNameSuffix];
    if (v === undefined || v === '') continue;
    if (!/^[+-]?\d+$/.test(v)) return err({ kind: 'BadSuffix', value: v });
    highest = Math.max(highest, Number.parseInt(v, 10));
  }
  if (highest + 1 > MaxNameSuffix) return err({ kind: 'MaxReached', generated: kind });
  return ok(`${base}-${highest + 1}`);
}

/** The suffix annotation value a config should carry for its key (`""` for the base name). */
export function suffixOf(key: string, pool: string, kind: GeneratedKind): string {
  const base = generatedBaseName(pool, kind);
  return key === base ? '' : key.slice(base.length + 1);
}

/**
 * Which pools a MachineConfig event concerns (upstream render controller's resolveControllerRef /
 * getPoolsForMachineConfig, docs/reference/render.md §3.1): the pool named by its controller reference (if
 * the UID still matches), else every pool whose non-empty machineConfigSelector matches its labels
 * (generated configs owned by a KubeletConfig or ContainerRuntimeConfig reach their pools by label).
 * A MachineConfig without labels concerns no pool (an error upstream logs).
 */
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import {
  isEmptySelector,
  matchesLabelSelector,
} from '../../api/meta/v1/label-selector-matching.js';
import { err, ok, type Result } from '../../lib/result.js';

export type PoolsForConfigError =
  | { readonly kind: 'NoLabels'; readonly config: string }
  | { readonly kind: 'NoPool'; readonly config: string; readonly labels: string };

export function describePoolsForConfigError(e: PoolsForConfigError): string {
  switch (e.kind) {
    case 'NoLabels':
      return `no MachineConfigPool found for MachineConfig ${e.config} because it has no labels`;
    case 'NoPool':
      return `could not find any MachineConfigPool set for MachineConfig ${e.config} with labels: ${e.labels}`;
  }
}

/** Go's `%v` of a map[string]string: `map[k1:v1 k2:v2]`, keys sorted. */
function goMap(m: Readonly<Record<string, string>>): string {
  const parts = Object.keys(m)
    .sort()
    .map((k) => `${k}:${m[k] ?? ''}`);
  return `map[${parts.join(' ')}]`;
}

export function poolsForMachineConfig(
  mc: MachineConfig,
  pools: readonly MachineConfigPool[],
): Result<MachineConfigPool[], PoolsForConfigError> {
  const name = mc.metadata.name ?? '';
  const controller = mc.metadata.ownerReferences?.find((o) => o.controller === true);
  if (controller?.kind === 'MachineConfigPool') {
    const pool = pools.find((p) => p.metadata.name === controller.name);
    if (pool !== undefined && pool.metadata.uid === controller.uid) return ok([pool]);
  }
  const labels = mc.metadata.labels ?? {};
  if (Object.keys(labels).length === 0) return err({ kind: 'NoLabels', config: name });
  const matching = pools.filter((p) => {
    const selector = p.spec.machineConfigSelector;
    return (
      selector !== undefined && !isEmptySelector(selector) && matchesLabelSelector(selector, labels)
    );
  });
  if (matching.length === 0) return err({ kind: 'NoPool', config: name, labels: goMap(labels) });
  return ok(matching);
}

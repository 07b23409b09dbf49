/**
 * The built-in pools the operator keeps (docs/reference/api.md §2.3,
 * docs/reference/operator.md §9.1): created when missing, and
 * afterwards only their metadata is enforced (the labels upstream's manifests carry); the spec is
 * the administrator's.
 */
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { builtInPool, type BuiltInPoolName } from '../pools/built-in-pools.js';

/** The built-in pools every cluster gets (arbiter only with an arbiter topology, not modelled). */
export const OperatorPools: readonly BuiltInPoolName[] = ['master', 'worker'];

function addMissing(
  have: Readonly<Record<string, string>> | undefined,
  want: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  if (want === undefined) return undefined;
  const out = { ...have };
  let changed = false;
  for (const [key, value] of Object.entries(want)) {
    if (out[key] !== value) {
      out[key] = value;
      changed = true;
    }
  }
  return changed ? out : undefined;
}

/**
 * `existing` with the built-in pool's labels and annotations restored (library-go
 * EnsureObjectMeta: required keys set, other keys kept), or undefined when nothing is missing.
 */
export function enforceBuiltInPoolMetadata(
  existing: MachineConfigPool,
  name: BuiltInPoolName,
): MachineConfigPool | undefined {
  const required = builtInPool(name).metadata;
  const labels = addMissing(existing.metadata.labels, required.labels);
  const annotations = addMissing(existing.metadata.annotations, required.annotations);
  if (labels === undefined && annotations === undefined) return undefined;
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      ...(labels === undefined ? {} : { labels }),
      ...(annotations === undefined ? {} : { annotations }),
    },
  };
}

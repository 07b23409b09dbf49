/**
 * Create-or-update of a generated MachineConfig, as upstream's resourceapply.ApplyMachineConfig:
 * absent → create; present → merge the required labels, annotations and owner references into the
 * existing metadata, take the required spec, and update only if anything changed.
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { OwnerReference } from '../../api/meta/v1/owner-reference.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import { Resources } from '../../api/resource-refs.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { jsonEqual } from '../../lib/json-equal.js';

export type ApplyOutcome = 'created' | 'updated' | 'unchanged';

function mergeMap(
  existing: Readonly<Record<string, string>> | undefined,
  required: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  if (required === undefined || Object.keys(required).length === 0) return existing;
  return { ...existing, ...required };
}

function mergeOwners(
  existing: readonly OwnerReference[] | undefined,
  required: readonly OwnerReference[] | undefined,
): OwnerReference[] | undefined {
  if (required === undefined || required.length === 0) return existing && [...existing];
  const out = [...(existing ?? [])];
  for (const ref of required) {
    const i = out.findIndex((o) => o.uid === ref.uid);
    if (i >= 0) out[i] = ref;
    else out.push(ref);
  }
  return out;
}

export async function applyMachineConfig(
  client: ResourceClient,
  required: MachineConfig,
  signal?: AbortSignal,
): Promise<ApplyOutcome> {
  const name = required.metadata.name ?? '';
  let existing: MachineConfig;
  try {
    existing = await client.get<MachineConfig>(Resources.machineConfig, name, undefined, signal);
  } catch (e) {
    if (!isStatusError(e, 'NotFound')) throw e;
    await client.create(Resources.machineConfig, required, signal === undefined ? {} : { signal });
    return 'created';
  }
  return applyMachineConfigOver(client, required, existing, signal);
}

/**
 * The update half, against a copy the caller already has (a cache's): no read, and the update
 * carries that copy's resourceVersion, so a stale copy is a Conflict to retry, never a lost write.
 */
export async function applyMachineConfigOver(
  client: ResourceClient,
  required: MachineConfig,
  existing: MachineConfig,
  signal?: AbortSignal,
): Promise<ApplyOutcome> {
  const labels = mergeMap(existing.metadata.labels, required.metadata.labels);
  const annotations = mergeMap(existing.metadata.annotations, required.metadata.annotations);
  const ownerReferences = mergeOwners(
    existing.metadata.ownerReferences,
    required.metadata.ownerReferences,
  );
  const next: MachineConfig = {
    ...existing,
    metadata: {
      ...existing.metadata,
      ...(labels === undefined ? {} : { labels }),
      ...(annotations === undefined ? {} : { annotations }),
      ...(ownerReferences === undefined ? {} : { ownerReferences }),
    },
    spec: required.spec ?? {},
  };
  if (jsonEqual(next, existing)) return 'unchanged';
  await client.update(Resources.machineConfig, next, signal === undefined ? {} : { signal });
  return 'updated';
}

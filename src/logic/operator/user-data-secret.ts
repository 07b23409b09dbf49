/**
 * The pointer Ignition Secret per pool (docs/reference/mcs.md §6.5): `openshift-machine-api/
 * <pool>-user-data-managed`, owned by the pool, whose `userData` is the pointer config a new
 * machine boots with (the real config is merged from the machine config server).
 */
import type { Secret } from '../../api/core/v1/secret.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { OwnerReference } from '../../api/meta/v1/owner-reference.js';
import { stringify } from 'safe-stable-stringify';
import type { Result } from '../../lib/result.js';
import { err, ok } from '../../lib/result.js';
import { pointerConfig, type PointerConfigError } from '../pointer-config.js';

export const UserDataSecretNamespace = 'openshift-machine-api';

/**
 * On a cluster without OpenShift's machine API (plain Kubernetes) there is no namespace for the
 * Secrets and no MachineSet to read them: the operator says so in its ClusterOperator's
 * `status.extension` under this key and carries on.
 */
export const NoMachineApiNotice = {
  key: 'machineAPI',
  message: `namespace ${UserDataSecretNamespace} not found: no OpenShift machine API (machine.openshift.io) on this cluster, so the pointer Ignition Secrets <pool>-user-data-managed are not written (mco pointer-config prints a pool's pointer config)`,
} as const;

/** Upstream's label on the Secret (manifests/userdata_secret.yaml). */
const ManagedCaBundleLabel =
  'machineconfiguration.openshift.io/managed-ca-bundle-derived-from-configmap';

/** base64("true\n"), upstream's `disableTemplating`. */
const DisableTemplating = 'dHJ1ZQo=';

function userDataSecretName(pool: string): string {
  return `${pool}-user-data-managed`;
}

export interface UserDataSecretInput {
  readonly pool: MachineConfigPool;
  /** The machine config server's base URL, e.g. `https://api-int.example.com:22623`. */
  readonly serverUrl: string;
  /** PEM of the CA that signed the machine config server's certificate. */
  readonly caBundle: Uint8Array;
  readonly token?: string;
}

function poolOwner(pool: MachineConfigPool): OwnerReference {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    name: pool.metadata.name ?? '',
    uid: pool.metadata.uid ?? '',
  };
}

export function userDataSecret(input: UserDataSecretInput): Result<Secret, PointerConfigError> {
  const name = input.pool.metadata.name ?? '';
  const text = pointerConfig({
    pool: name,
    serverUrl: input.serverUrl,
    caBundle: input.caBundle,
    ...(input.token === undefined ? {} : { token: input.token }),
  });
  if (!text.ok) return err(text.error);
  return ok({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: userDataSecretName(name),
      namespace: UserDataSecretNamespace,
      labels: { [ManagedCaBundleLabel]: '' },
      ownerReferences: [poolOwner(input.pool)],
    },
    type: 'Opaque',
    data: {
      disableTemplating: DisableTemplating,
      userData: Buffer.from(text.value, 'utf8').toString('base64'),
    },
  });
}

/**
 * What to write over `existing` so it matches `desired` (library-go ApplySecret: required labels
 * and annotations added, owners replaced, data and type replaced), or undefined if it already does.
 */
export function updatedUserDataSecret(existing: Secret, desired: Secret): Secret | undefined {
  const labels = { ...existing.metadata.labels, ...desired.metadata.labels };
  const same =
    stringify(labels) === stringify(existing.metadata.labels ?? {}) &&
    stringify(existing.metadata.ownerReferences ?? []) ===
      stringify(desired.metadata.ownerReferences ?? []) &&
    stringify(existing.data ?? {}) === stringify(desired.data ?? {}) &&
    existing.type === desired.type;
  if (same) return undefined;
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels,
      ...(desired.metadata.ownerReferences === undefined
        ? {}
        : { ownerReferences: desired.metadata.ownerReferences }),
    },
    ...(desired.type === undefined ? {} : { type: desired.type }),
    ...(desired.data === undefined ? {} : { data: desired.data }),
  };
}

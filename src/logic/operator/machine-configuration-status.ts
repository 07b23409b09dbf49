/**
 * The operator's MachineConfiguration step (upstream syncMachineConfiguration,
 * docs/reference/node-disruption.md §2–3): the status of MachineConfiguration/cluster is a copy
 * of the current one with `nodeDisruptionPolicyStatus.clusterPolicies` = the cluster defaults
 * merged with `spec.nodeDisruptionPolicy`, and `observedGeneration` = `metadata.generation`.
 * Existing conditions are kept; the operator adds none (the boot-image controller owns
 * BootImageUpdateProgressing and BootImageUpdateDegraded), but a True BootImageUpdateDegraded
 * fails the step. A daemon waits for `observedGeneration == generation` before it plans with the
 * status (docs/reference/daemon.md §7.4), so this is what lets node updates start.
 */
import { stringify } from 'safe-stable-stringify';
import type {
  MachineConfiguration,
  MachineConfigurationStatus,
  NodeDisruptionPolicyClusterStatus,
} from '../../api/operator/v1/machine-configuration.js';
import {
  defaultClusterPolicies,
  mergeClusterPolicies,
} from '../nodeplan/node-disruption-policies.js';
import type { ClusterPolicies, PolicyAction } from '../nodeplan/policy-types.js';

const copyActions = (actions: readonly PolicyAction[]) => actions.map((a) => ({ ...a }));

/** The merged policies as the API type holds them (fresh lists, nothing shared). */
function statusPolicies(p: ClusterPolicies): NodeDisruptionPolicyClusterStatus {
  return {
    ...(p.files === undefined
      ? {}
      : { files: p.files.map((f) => ({ path: f.path, actions: copyActions(f.actions) })) }),
    ...(p.units === undefined
      ? {}
      : { units: p.units.map((u) => ({ name: u.name, actions: copyActions(u.actions) })) }),
    ...(p.sshkey === undefined ? {} : { sshkey: { actions: copyActions(p.sshkey.actions) } }),
  };
}

/** What the operator applies when MachineConfiguration/cluster is missing (server-side apply). */
export function initialMachineConfiguration(name: string): MachineConfiguration {
  return {
    apiVersion: 'operator.openshift.io/v1',
    kind: 'MachineConfiguration',
    metadata: { name },
    spec: { managementState: 'Managed' },
  };
}

/** The status the operator writes, or undefined when the stored one already is it. */
export function nextMachineConfigurationStatus(
  mcop: MachineConfiguration,
): MachineConfigurationStatus | undefined {
  const current = mcop.status ?? {};
  const next: MachineConfigurationStatus = {
    ...current,
    nodeDisruptionPolicyStatus: {
      clusterPolicies: statusPolicies(
        mergeClusterPolicies(defaultClusterPolicies, mcop.spec.nodeDisruptionPolicy),
      ),
    },
    observedGeneration: mcop.metadata.generation ?? 0,
  };
  return stringify(next) === stringify(current) ? undefined : next;
}

const BootImageUpdateDegraded = 'BootImageUpdateDegraded';

/** `bootimage update failed: <message>` when the boot-image controller reports Degraded. */
export function bootImageFailure(mcop: MachineConfiguration): string | undefined {
  const degraded = (mcop.status?.conditions ?? []).find(
    (c) => c.type === BootImageUpdateDegraded && c.status === 'True',
  );
  return degraded === undefined ? undefined : `bootimage update failed: ${degraded.message}`;
}

/**
 * Node disruption policies (docs/reference/daemon.md §7.4): which actions a change needs (Reboot, Drain,
 * Reload, Restart, DaemonReload, None, Special), from MCO's default table merged with the user's
 * MachineConfiguration/cluster `spec.nodeDisruptionPolicy`. This is the normal (non-firstboot)
 * path; the legacy table is in legacy-post-config-action.ts.
 */
import { goPathClean } from '../../lib/go/path.js';
import { unitNameProblem } from '../render/systemd-names.js';
import type { MachineConfigDiff } from './machine-config-diff.js';
import {
  ContainerRegistryConfPath,
  ContainerRegistryPolicyPath,
  CrioPoliciesDir,
  GpgNoRebootPath,
  KubeletAuthFilePath,
  OpenShiftNmStateConfigDir,
  SigstoreRegistriesConfigDir,
  UserCaBundlePath,
} from './node-paths.js';
import type {
  ClusterPolicies,
  PolicyAction,
  SpecPolicyAction,
  UserPolicies,
} from './policy-types.js';

type Action = PolicyAction;

const none: Action = { type: 'None' };
const reboot: Action = { type: 'Reboot' };
const special: Action = { type: 'Special' };
const daemonReload: Action = { type: 'DaemonReload' };
const reloadService = (serviceName: string): Action => ({
  type: 'Reload',
  reload: { serviceName },
});
const restartService = (serviceName: string): Action => ({
  type: 'Restart',
  restart: { serviceName },
});

export const UpdateCaTrustService = 'coreos-update-ca-trust.service';

/** MCO's defaults (pkg/apihelpers defaultClusterPolicies), in upstream's order. */
export const defaultClusterPolicies: ClusterPolicies = {
  files: [
    { path: KubeletAuthFilePath, actions: [none] },
    { path: GpgNoRebootPath, actions: [reloadService('crio.service')] },
    { path: ContainerRegistryPolicyPath, actions: [reloadService('crio.service')] },
    { path: ContainerRegistryConfPath, actions: [special] },
    { path: SigstoreRegistriesConfigDir, actions: [reloadService('crio.service')] },
    { path: CrioPoliciesDir, actions: [reloadService('crio.service')] },
    { path: OpenShiftNmStateConfigDir, actions: [none] },
    {
      path: UserCaBundlePath,
      actions: [restartService(UpdateCaTrustService), restartService('crio.service')],
    },
    { path: '/etc/kubernetes/credential-providers', actions: [restartService('kubelet.service')] },
    {
      path: '/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf',
      actions: [daemonReload, restartService('kubelet.service')],
    },
    { path: '/etc/iri-registry', actions: [restartService('iri-registry.service')] },
    {
      path: '/usr/local/bin/load-registry-image.sh',
      actions: [restartService('iri-registry.service')],
    },
    {
      path: '/etc/pki/ca-trust/source/anchors/iri-root-ca.crt',
      actions: [restartService(UpdateCaTrustService)],
    },
  ],
  units: [
    {
      name: 'iri-registry.service',
      actions: [daemonReload, restartService('iri-registry.service')],
    },
  ],
  sshkey: { actions: [none] },
};

/** convertSpecActiontoStatusAction: keep only the service that belongs to the action's type. */
function toStatusAction(a: SpecPolicyAction): Action {
  switch (a.type) {
    case 'Reload':
      return reloadService(a.reload?.serviceName ?? '');
    case 'Restart':
      return restartService(a.restart?.serviceName ?? '');
    case 'Reboot':
    case 'Drain':
    case 'DaemonReload':
    case 'None':
      return { type: a.type };
  }
}

/**
 * MergeClusterPolicies: a user file (unit) policy with the same path (name) as a default replaces
 * it in place; others are appended in the user's order; the user's sshkey actions replace the
 * default only when non-empty.
 */
export function mergeClusterPolicies(
  defaults: ClusterPolicies,
  spec: UserPolicies | undefined,
): ClusterPolicies {
  const files = mergeByKey(
    defaults.files ?? [],
    (spec?.files ?? []).map((f) => ({ path: f.path, actions: f.actions.map(toStatusAction) })),
    (f) => f.path,
  );
  const units = mergeByKey(
    defaults.units ?? [],
    (spec?.units ?? []).map((u) => ({ name: u.name, actions: u.actions.map(toStatusAction) })),
    (u) => u.name,
  );
  const userSsh = spec?.sshkey?.actions ?? [];
  const sshkey =
    userSsh.length === 0
      ? { actions: [...(defaults.sshkey?.actions ?? [])] }
      : { actions: userSsh.map(toStatusAction) };
  return { files, units, sshkey };
}

/** Defaults with a user entry of the same key replaced in place; other user entries appended. */
function mergeByKey<T>(defaults: readonly T[], user: readonly T[], key: (t: T) => string): T[] {
  const merged = [...defaults];
  for (const entry of user) {
    const i = defaults.findIndex((d) => key(d) === key(entry));
    if (i >= 0) merged[i] = entry;
    else merged.push(entry);
  }
  return merged;
}

/** IsSubdirectory: Clean(dir) + "/" is a prefix of Clean(target). */
export function isSubdirectory(dir: string, target: string): boolean {
  return goPathClean(target).startsWith(`${goPathClean(dir)}/`);
}

/**
 * FindClosestFilePolicyPathMatch: the policy whose path equals `path` or is a parent directory of
 * it, preferring the longest policy path (the first of equal length wins).
 */
export function findClosestFilePolicy(
  path: string,
  policies: ClusterPolicies,
): readonly Action[] | undefined {
  let best: { length: number; actions: readonly Action[] } | undefined;
  for (const policy of policies.files ?? []) {
    const matches = path === policy.path || isSubdirectory(policy.path, path);
    if (matches && policy.path.length > (best?.length ?? 0))
      best = { length: policy.path.length, actions: policy.actions };
  }
  return best?.actions;
}

const hasAny = (actions: readonly Action[], ...types: Action['type'][]): boolean =>
  actions.some((a) => types.includes(a.type));

/**
 * calculatePostConfigChangeNodeDisruptionActionFromMCDiffs: every changed path and unit must have a
 * policy (else Reboot), their actions are concatenated (order and duplicates kept) with the sshkey
 * actions when passwd changed; any Reboot wins; None is dropped beside other actions; only Nones
 * collapse to a single None.
 */
export function actionsFromPolicies(
  passwdChanged: boolean,
  changedFiles: readonly string[],
  changedUnits: readonly string[],
  policies: ClusterPolicies,
): readonly Action[] {
  const actions: Action[] = [];
  for (const path of changedFiles) {
    const found = findClosestFilePolicy(path, policies);
    if (found === undefined) return [reboot];
    actions.push(...found);
  }
  for (const name of changedUnits) {
    const found = (policies.units ?? []).find((u) => u.name === name);
    if (found === undefined) return [reboot];
    actions.push(...found.actions);
  }
  if (passwdChanged) actions.push(...(policies.sshkey?.actions ?? []));
  if (hasAny(actions, 'Reboot')) return [reboot];
  if (hasAny(actions, 'None')) {
    if (hasAny(actions, 'Drain', 'Reload', 'Restart', 'DaemonReload', 'Special'))
      return actions.filter((a) => a.type !== 'None');
    return [none];
  }
  return actions;
}

/**
 * calculatePostConfigChangeNodeDisruptionAction once MachineConfiguration/cluster is ready: the
 * forcefile or any OS-level change reboots; no file, unit or passwd change needs nothing.
 */
export function calculatePostConfigChangeActions({
  diff,
  changedFiles,
  changedUnits,
  policies,
  forceFile,
}: {
  readonly diff: MachineConfigDiff;
  readonly changedFiles: readonly string[];
  readonly changedUnits: readonly string[];
  readonly policies: ClusterPolicies;
  readonly forceFile: boolean;
}): readonly Action[] {
  if (forceFile) return [reboot];
  if (diff.osUpdate || diff.kargs || diff.fips || diff.kernelType || diff.extensions)
    return [reboot];
  if (!diff.files && !diff.units && !diff.passwd) return [none];
  return actionsFromPolicies(diff.passwd, changedFiles, changedUnits, policies);
}

/** The log/MCN form of an action: `Reload - crio.service`, `Reboot`, … */
export function describeAction(a: Action): string {
  if (a.type === 'Reload') return `Reload - ${a.reload?.serviceName ?? ''}`;
  if (a.type === 'Restart') return `Restart - ${a.restart?.serviceName ?? ''}`;
  return a.type;
}

/** The unit types systemd knows: a policy's service names one of them (the CRD's suffix rule). */
const UnitSuffixes = [
  '.service',
  '.socket',
  '.device',
  '.mount',
  '.automount',
  '.swap',
  '.target',
  '.path',
  '.timer',
  '.slice',
  '.scope',
];

/**
 * Why a Reload or Restart action's service cannot be handed to systemctl, or undefined. The CRD
 * rules (docs/reference/node-disruption.md §1) hold it to a unit name with a unit suffix; a server without them
 * stores anything, and the name becomes an argument of `systemctl restart`, so the daemon checks
 * again: a systemd unit name, a unit suffix, and no leading `-` (which systemctl would read as
 * an option).
 */
export function serviceNameProblem(name: string): string | undefined {
  const unit = unitNameProblem(name);
  if (unit !== undefined) return unit;
  if (name.startsWith('-')) return 'must not start with "-"';
  if (!UnitSuffixes.some((s) => name.endsWith(s) && name.length > s.length))
    return `must end in a systemd unit type (${UnitSuffixes.join(', ')})`;
  return undefined;
}

/** The service a Reload or Restart action names ('' when the action lacks it). */
export function actionService(a: PolicyAction): string | undefined {
  if (a.type === 'Reload') return a.reload?.serviceName ?? '';
  if (a.type === 'Restart') return a.restart?.serviceName ?? '';
  return undefined;
}

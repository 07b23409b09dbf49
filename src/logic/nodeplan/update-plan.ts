/**
 * planUpdate(from, to, facts): everything a node will do to move from one rendered config to
 * another, decided up front as one value (docs/reference/daemon.md §7.2–7.5). The daemon gathers
 * the facts (forcefile, FIPS, booted image, MachineConfiguration/cluster's policies), asks for a
 * plan, and executes it step by step; `mco render --explain` and `mco rollout preview` ask for the
 * same plan and show it. Each config is parsed once, here.
 *
 * The order of changed paths and units is fixed (upstream's is Go map order): removed paths, then
 * added or changed ones, each sorted by path; then units added, updated, removed, each sorted by
 * name (config-diffs.ts). The policy actions follow that order, duplicates kept.
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { err, ok, type Result } from '../../lib/result.js';
import type { ReconcileOverrides } from '../render/reconcile.js';
import { changedFilePaths, changedUnitNames, changedUnits } from './config-diffs.js';
import { isDrainRequired, type PostConfigActions } from './drain-decision.js';
import {
  describeFileWriteError,
  planFileWrites,
  type FileWriteError,
  type PlannedFile,
} from './file-writes.js';
import { normalizedExtensions } from './extension-packages.js';
import { kernelArgumentChange, type KernelArgumentChange } from './kernel-arguments.js';
import { canonicalizeKernelType } from './kernel-type.js';
import { calculateLegacyPostConfigChangeAction } from './legacy-post-config-action.js';
import {
  machineConfigDiff,
  needsOsChanges,
  osChangesString,
  type MachineConfigDiff,
} from './machine-config-diff.js';
import { managedPaths } from './managed-paths.js';
import {
  describeNodeConfigError,
  parseNodeConfig,
  type NodeConfig,
  type NodeConfigError,
} from './node-config.js';
import {
  actionService,
  calculatePostConfigChangeActions,
  describeAction,
  serviceNameProblem,
} from './node-disruption-policies.js';
import { AuthorizedKeysFragmentPath } from './node-paths.js';
import {
  checkParsedNodeReconcilable,
  describeNodeReconcileError,
  type NodeReconcileError,
} from './node-reason.js';
import type { ClusterPolicies } from './policy-types.js';
import { postConfigSteps, type PostConfigStep } from './post-config-steps.js';
import {
  describeRegistriesConfError,
  registriesConfChange,
  type RegistriesConfError,
} from './registries-conf.js';
import { planStaleRemovals, type StaleRemovals } from './stale-removals.js';
import {
  describeTargetConfigError,
  parseTargetNodeConfig,
  type TargetConfigError,
} from './target-node-config.js';
import { planUnitWrites, type PlannedUnit } from './unit-writes.js';
import { authorizedKeysContent, planPasswords, type PasswordPlan } from './users.js';

/** What the node is and holds, read by the caller before it asks for a plan. */
export interface NodeFacts {
  /** First boot or `--once-from`: the legacy action table, no drain. */
  readonly firstBoot: boolean;
  /** `/run/machine-config-daemon-force` exists: everything is re-applied, then a reboot. */
  readonly forceFile: boolean;
  /** `/proc/sys/crypto/fips_enabled`; undefined skips the node's FIPS check. */
  readonly nodeFips?: boolean;
  /** The node disruption policies (MachineConfiguration/cluster status); unused at first boot. */
  readonly policies: ClusterPolicies;
  readonly overrides?: ReconcileOverrides;
  /** The OS image of the booted deployment, when the host knows it. */
  readonly bootedImage?: string;
  /** `controlPlaneTopology=SingleReplica`: the node never drains. */
  readonly singleReplica?: boolean;
}

interface DrainPlan {
  /** What the actions and the registries.conf change ask for (`Drain Required:`). */
  readonly required: boolean;
  /** Whether the node asks for a drain (never at first boot or on a single-replica node). */
  readonly perform: boolean;
  /** Why no drain happens, for the log ('' when it drains). */
  readonly skipReason: string;
}

interface KernelTypePlan {
  /** The canonical kernel type of the target (`default`, `realtime`, `64k-pages`). */
  readonly target: string;
  readonly changed: boolean;
  /** Undo a kernel swap first, then swap again when the target is not `default`. */
  readonly swap: boolean;
}

interface ExtensionsPlan {
  /** The target's `baseOSExtensionsContainerImage`. */
  readonly image: string;
  readonly extensions: readonly string[];
}

export interface OsPlan {
  /** applyOSChanges has anything to do (realtime and 64k kernels re-apply every time). */
  readonly apply: boolean;
  /**
   * Whether OSUpdateStarted and OSUpdateStaged are emitted: something is left to change once an
   * image the node already boots is dropped (a forcefile repair announces no upgrade).
   */
  readonly announce: boolean;
  /** The OSUpdateStarted event text. */
  readonly reason: string;
  /** Pull (before the drain) and stage this image: it changes and is not the booted one. */
  readonly stageImage?: string;
  /** The diff says osUpdate, but the booted OS already is the target image. */
  readonly imageAlreadyBooted: boolean;
  /** Upstream's OSUpgradeApplied or OSUpgradeSkipped event, after the image step. */
  readonly upgradeEvent: { readonly reason: string; readonly message: string };
  readonly kernelArguments?: KernelArgumentChange;
  readonly kernelType: KernelTypePlan;
  /**
   * The extensions the next boot must carry, when they change or when a new OS commit is staged
   * under extensions the target keeps (upstream re-applies them on a new osImageURL): the
   * target's extensions image and its extensions, de-duplicated and sorted.
   */
  readonly extensions?: ExtensionsPlan;
}

interface UsersPlan {
  /** The new `authorized_keys.d/ignition` when passwd changed. */
  readonly sshKeys?: string;
  readonly passwords: PasswordPlan;
}

/** What the journal records before anything is written, so a rollback restores it exactly. */
interface JournalPlan {
  /** Paths only the new config manages (their prior state is kept). */
  readonly capturePaths: readonly string[];
  /** Users either config names (their password hashes are kept). */
  readonly users: readonly string[];
  /** Units only the new config names (their enablement is kept). */
  readonly newUnits: readonly string[];
}

interface PlanMessages {
  /** The actions as the log and the UpdatePrepared message print them: `[Reload - crio.service]`. */
  readonly actions: string;
  /** MachineConfigNode `UpdatePrepared=True`. */
  readonly prepared: string;
  /** MachineConfigNode `AppliedFilesAndOS`, before and after the writes. */
  readonly applying: string;
  readonly applied: string;
}

export interface UpdatePlan {
  readonly from: NodeConfig;
  readonly to: NodeConfig;
  readonly firstBoot: boolean;
  readonly forceFile: boolean;
  readonly diff: MachineConfigDiff;
  /** Changed file paths and unit names, in the fixed order above. */
  readonly changedFiles: readonly string[];
  readonly changedUnits: readonly string[];
  /** Every file of the new config, decoded (kubelet-ca.crt skipped except at first boot). */
  readonly files: readonly PlannedFile[];
  /** The units written: added or changed ones (all of them with the forcefile). */
  readonly units: readonly PlannedUnit[];
  readonly stale: StaleRemovals;
  readonly users: UsersPlan;
  readonly os: OsPlan;
  readonly actions: PostConfigActions;
  /** What running the actions does, in order (a reboot ends the list). */
  readonly steps: readonly PostConfigStep[];
  readonly drain: DrainPlan;
  readonly reboot: boolean;
  readonly journal: JournalPlan;
  readonly messages: PlanMessages;
}

export type PlanError =
  | { readonly kind: 'Parse'; readonly error: NodeConfigError }
  | { readonly kind: 'Target'; readonly error: TargetConfigError }
  | { readonly kind: 'Unreconcilable'; readonly error: NodeReconcileError }
  | { readonly kind: 'Registries'; readonly error: RegistriesConfError }
  | { readonly kind: 'Files'; readonly error: FileWriteError }
  | { readonly kind: 'ServiceName'; readonly service: string; readonly reason: string };

export function describePlanError(e: PlanError): string {
  switch (e.kind) {
    case 'Parse':
      return describeNodeConfigError(e.error);
    case 'Target':
      return describeTargetConfigError(e.error);
    case 'Unreconcilable':
      return describeNodeReconcileError(e.error);
    case 'Registries':
      return describeRegistriesConfError(e.error);
    case 'Files':
      return describeFileWriteError(e.error);
    case 'ServiceName':
      return `refusing a node disruption policy action: invalid service name ${JSON.stringify(e.service)}: ${e.reason}`;
  }
}

function actionsText(actions: PostConfigActions): string {
  return actions.kind === 'legacy'
    ? `[${actions.actions.join(' ')}]`
    : `[${actions.actions.map(describeAction).join(' ')}]`;
}

function planOs(
  diff: MachineConfigDiff,
  from: NodeConfig,
  to: NodeConfig,
  bootedImage: string | undefined,
): OsPlan {
  const kernel = canonicalizeKernelType(to.kernelType);
  const imageDiffers =
    bootedImage === undefined ? from.osImageURL !== to.osImageURL : bootedImage !== to.osImageURL;
  // Upstream drops the OS update when the booted image already is the target ("Already in desired
  // image") only after its OSUpdateStarted event said "Upgrading OS"; dropping it first keeps the
  // events true to what is done.
  const effective: MachineConfigDiff =
    diff.osUpdate && !imageDiffers ? { ...diff, osUpdate: false } : diff;
  const stage = effective.osUpdate && to.osImageURL !== '';
  return {
    apply: needsOsChanges(diff, to),
    announce: needsOsChanges(effective, to),
    reason: osChangesString(effective) || `Updating to a target config with ${kernel} kernel`,
    ...(stage ? { stageImage: to.osImageURL } : {}),
    imageAlreadyBooted: diff.osUpdate && !imageDiffers,
    upgradeEvent: stage
      ? {
          reason: 'OSUpgradeApplied',
          message: `OS upgrade applied; new MachineConfig (${to.name}) has new OS image (${to.osImageURL})`,
        }
      : {
          reason: 'OSUpgradeSkipped',
          message: `OS upgrade skipped; new MachineConfig (${to.name}) has same OS image (${to.osImageURL}) as old MachineConfig (${from.name})`,
        },
    ...(diff.kargs
      ? { kernelArguments: kernelArgumentChange(from.kernelArguments, to.kernelArguments) }
      : {}),
    kernelType: {
      target: kernel,
      changed: diff.kernelType,
      swap: effective.osUpdate || diff.kernelType,
    },
    ...(diff.extensions || (stage && to.extensions.length > 0)
      ? {
          extensions: {
            image: to.extensionsImage ?? '',
            extensions: normalizedExtensions(to.extensions),
          },
        }
      : {}),
  };
}

function checkServices(actions: PostConfigActions): PlanError | undefined {
  if (actions.kind === 'legacy') return undefined;
  for (const a of actions.actions) {
    const service = actionService(a);
    if (service === undefined) continue;
    const reason = serviceNameProblem(service);
    if (reason !== undefined) return { kind: 'ServiceName', service, reason };
  }
  return undefined;
}

function journalPlan(from: NodeConfig, to: NodeConfig, diff: MachineConfigDiff): JournalPlan {
  const fromManaged = managedPaths(from.ignition);
  const capturePaths = [...managedPaths(to.ignition)].filter((p) => !fromManaged.has(p));
  if (diff.passwd && !fromManaged.has(AuthorizedKeysFragmentPath))
    capturePaths.push(AuthorizedKeysFragmentPath);
  const fromUnits = new Set((from.ignition.systemd?.units ?? []).map((u) => u.name));
  return {
    capturePaths,
    users: [
      ...new Set([
        ...(from.ignition.passwd?.users ?? []).map((u) => u.name),
        ...(to.ignition.passwd?.users ?? []).map((u) => u.name),
      ]),
    ],
    newUnits: (to.ignition.systemd?.units ?? [])
      .map((u) => u.name)
      .filter((n) => !fromUnits.has(n)),
  };
}

function drainPlan(required: boolean, facts: NodeFacts): DrainPlan {
  if (!required)
    return { required, perform: false, skipReason: 'Changes do not require drain, skipping.' };
  if (facts.singleReplica === true)
    return {
      required,
      perform: false,
      skipReason: 'Drain not required on a single-replica control plane, skipping.',
    };
  return { required, perform: true, skipReason: '' };
}

function messages(
  diff: MachineConfigDiff,
  actions: PostConfigActions,
  drain: boolean,
): PlanMessages {
  const osWord = diff.osUpdate || diff.extensions || diff.kernelType ? '' : 'not ';
  const sshWord = diff.passwd ? '' : 'not ';
  const text = actionsText(actions);
  return {
    actions: text,
    prepared: `Update Compatible. Post Cfg Actions: ${text} Drain Required: ${String(drain)}`,
    applying: `Applying files and new OS config to node. OS will ${osWord}need an update. SSH Keys will ${sshWord}need an update`,
    applied: `Applied files and new OS config to node. OS did ${osWord}need an update. SSH Keys did ${sshWord}need an update`,
  };
}

/** The configs parsed and found reconcilable, or the reason they cannot be applied. */
function parseBoth(
  fromMc: MachineConfig,
  toMc: MachineConfig,
  facts: NodeFacts,
): Result<{ from: NodeConfig; to: NodeConfig }, PlanError> {
  const from = parseNodeConfig(fromMc, 'old');
  if (!from.ok) return err({ kind: 'Parse', error: from.error });
  const to = parseTargetNodeConfig(toMc);
  if (!to.ok) return err({ kind: 'Target', error: to.error });
  const reconcilable = checkParsedNodeReconcilable(from.value, to.value, {
    ...(facts.nodeFips === undefined ? {} : { nodeFips: facts.nodeFips }),
    ...(facts.overrides === undefined ? {} : { overrides: facts.overrides }),
  });
  if (!reconcilable.ok) return err({ kind: 'Unreconcilable', error: reconcilable.error });
  return ok({ from: from.value, to: to.value });
}

export function planUpdate(
  fromMc: MachineConfig,
  toMc: MachineConfig,
  facts: NodeFacts,
): Result<UpdatePlan, PlanError> {
  const configs = parseBoth(fromMc, toMc, facts);
  if (!configs.ok) return configs;
  const { from, to } = configs.value;
  const forceFile = facts.forceFile;
  const diff = machineConfigDiff(from, to, { forceFile });
  const changedFiles = changedFilePaths(from.ignition, to.ignition);
  const changedUnitList = changedUnitNames(changedUnits(from.ignition, to.ignition));
  const actions: PostConfigActions = facts.firstBoot
    ? {
        kind: 'legacy',
        actions: calculateLegacyPostConfigChangeAction(diff, changedFiles, forceFile),
      }
    : {
        kind: 'policies',
        actions: calculatePostConfigChangeActions({
          diff,
          changedFiles,
          changedUnits: changedUnitList,
          policies: facts.policies,
          forceFile,
        }),
      };
  const badService = checkServices(actions);
  if (badService !== undefined) return err(badService);
  const registries = registriesConfChange(from.ignition, to.ignition, changedFiles);
  if (!registries.ok) return err({ kind: 'Registries', error: registries.error });
  const drainDecision = isDrainRequired(actions, registries.value);
  if (!drainDecision.ok) return err({ kind: 'Registries', error: drainDecision.error });
  const files = planFileWrites(to.ignition, { skipCertificateWrite: !facts.firstBoot });
  if (!files.ok) return err({ kind: 'Files', error: files.error });
  const drain = drainPlan(drainDecision.value && !facts.firstBoot, facts);
  const steps = postConfigSteps(actions, to.name);
  return ok({
    from,
    to,
    firstBoot: facts.firstBoot,
    forceFile,
    diff,
    changedFiles,
    changedUnits: changedUnitList,
    files: files.value,
    units: planUnitWrites(from.ignition, to.ignition, { forceFile }),
    stale: planStaleRemovals(from.ignition, to.ignition),
    users: {
      ...(diff.passwd ? { sshKeys: authorizedKeysContent(to.ignition) } : {}),
      passwords: planPasswords(from.ignition, to.ignition),
    },
    os: planOs(diff, from, to, facts.bootedImage),
    actions,
    steps,
    drain,
    reboot: steps.some((s) => s.kind === 'reboot'),
    journal: journalPlan(from, to, diff),
    messages: messages(diff, actions, drain.required),
  });
}

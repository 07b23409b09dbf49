/**
 * The legacy post-config action table (upstream calculatePostConfigChangeAction,
 * docs/reference/daemon.md §7.4 "Legacy path"). Used at firstboot only, where the cluster's node
 * disruption policies cannot be read. Cases: docs/reference/vectors.md §D3.
 */
import { goPathClean } from '../../lib/go/path.js';
import type { MachineConfigDiff } from './machine-config-diff.js';
import {
  ContainerRegistryConfPath,
  ContainerRegistryPolicyPath,
  GpgNoRebootPath,
  KubeletAuthFilePath,
  KubeletCaPath,
  OpenShiftNmStateConfigDir,
  SigstoreRegistriesConfigDir,
  UserCaBundlePath,
} from './node-paths.js';

export const LegacyAction = {
  None: 'none',
  Reboot: 'reboot',
  ReloadCrio: 'reload crio',
  RestartCrio: 'restart crio',
} as const;
export type LegacyAction = (typeof LegacyAction)[keyof typeof LegacyAction];

const skipFiles = [KubeletCaPath, KubeletAuthFilePath];
const skipDirs = [OpenShiftNmStateConfigDir];
const reloadCrioFiles = [ContainerRegistryConfPath, GpgNoRebootPath, ContainerRegistryPolicyPath];
const reloadCrioDirs = [SigstoreRegistriesConfigDir];
const restartCrioFiles = [UserCaBundlePath];

/** Go's filepath.Dir: the directory part, cleaned. */
function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return goPathClean(i < 0 ? '.' : path.slice(0, i + 1));
}

/** calculatePostConfigChangeActionFromMCDiffs: one action list from the changed paths. */
export function legacyActionFromChangedFiles(
  changedFiles: readonly string[],
): readonly LegacyAction[] {
  let actions: readonly LegacyAction[] = [LegacyAction.None];
  for (const path of changedFiles) {
    const dir = dirOf(path);
    if (skipFiles.includes(path)) continue;
    if (reloadCrioFiles.includes(path) || reloadCrioDirs.includes(dir)) {
      // a restart of crio already covers the reload
      if (!actions.includes(LegacyAction.RestartCrio)) actions = [LegacyAction.ReloadCrio];
    } else if (restartCrioFiles.includes(path)) {
      actions = [LegacyAction.RestartCrio];
    } else if (skipDirs.includes(dir)) {
      continue;
    } else {
      return [LegacyAction.Reboot];
    }
  }
  return actions;
}

/**
 * calculatePostConfigChangeAction: the forcefile and any OS-level or unit change reboot; otherwise
 * the changed paths decide. Passwd-only changes need nothing.
 */
export function calculateLegacyPostConfigChangeAction(
  diff: MachineConfigDiff,
  changedFiles: readonly string[],
  forceFile: boolean,
): readonly LegacyAction[] {
  if (forceFile) return [LegacyAction.Reboot];
  if (diff.osUpdate || diff.kargs || diff.fips || diff.units || diff.kernelType || diff.extensions)
    return [LegacyAction.Reboot];
  return legacyActionFromChangedFiles(changedFiles);
}

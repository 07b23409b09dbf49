/**
 * machineConfigDiff (upstream newMachineConfigDiff, docs/reference/daemon.md §7.3): which parts of the
 * machine change between two configs. It drives the post-config action, the drain decision and
 * which OS steps run. The forcefile is an input, not a file this function looks for.
 */
import { jsonEqual } from '../../lib/json-equal.js';
import { listsDiffer } from './lists-differ.js';
import { canonicalizeKernelType } from './kernel-type.js';
import type { NodeConfig } from './node-config.js';

export interface MachineConfigDiff {
  /** osImageURL differs, or the forcefile exists. */
  readonly osUpdate: boolean;
  /** Not both empty, and the lists differ (order matters). */
  readonly kargs: boolean;
  readonly fips: boolean;
  readonly passwd: boolean;
  readonly files: boolean;
  readonly units: boolean;
  /** Canonical kernel types differ ("" ≡ "default"). */
  readonly kernelType: boolean;
  /** Not both empty, and the lists differ. */
  readonly extensions: boolean;
}

export interface DiffOptions {
  /** Whether `/run/machine-config-daemon-force` exists on the node. */
  readonly forceFile: boolean;
}

export function machineConfigDiff(
  oldConfig: NodeConfig,
  newConfig: NodeConfig,
  options: DiffOptions,
): MachineConfigDiff {
  const o = oldConfig.ignition;
  const n = newConfig.ignition;
  return {
    osUpdate: oldConfig.osImageURL !== newConfig.osImageURL || options.forceFile,
    kargs: listsDiffer(oldConfig.kernelArguments, newConfig.kernelArguments),
    fips: oldConfig.fips !== newConfig.fips,
    passwd: !jsonEqual(o.passwd, n.passwd),
    files: !jsonEqual(o.storage?.files, n.storage?.files),
    units: !jsonEqual(o.systemd?.units, n.systemd?.units),
    kernelType:
      canonicalizeKernelType(oldConfig.kernelType) !== canonicalizeKernelType(newConfig.kernelType),
    extensions: listsDiffer(oldConfig.extensions, newConfig.extensions),
  };
}

export function isEmptyDiff(d: MachineConfigDiff): boolean {
  return (
    !d.osUpdate &&
    !d.kargs &&
    !d.fips &&
    !d.passwd &&
    !d.files &&
    !d.units &&
    !d.kernelType &&
    !d.extensions
  );
}

/** upstream osChangesString: the OSUpdateStarted event text. */
export function osChangesString(d: MachineConfigDiff): string {
  const changes: string[] = [];
  if (d.osUpdate) changes.push('Upgrading OS');
  if (d.extensions) changes.push('Installing extensions');
  if (d.kernelType) changes.push('Changing kernel type');
  if (d.kargs) changes.push('Changing kernel arguments');
  return changes.join('; ');
}

/**
 * Whether applyOSChanges has anything to do (docs/reference/daemon.md §7.8; realtime/64k kernels
 * re-apply every time).
 */
export function needsOsChanges(d: MachineConfigDiff, newConfig: NodeConfig): boolean {
  const kernel = canonicalizeKernelType(newConfig.kernelType);
  return (
    d.osUpdate ||
    d.extensions ||
    d.kernelType ||
    d.kargs ||
    kernel === 'realtime' ||
    kernel === '64k-pages'
  );
}

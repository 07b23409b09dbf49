/**
 * The OS part of an update (upstream applyOSChanges, docs/reference/daemon.md §7.8) through the Host's
 * OsUpdater: drop whatever was staged before, stage the new OS image when the booted one differs,
 * and move the kernel arguments (the old list deleted, the new one appended,
 * docs/reference/vectors.md §D1). Starting
 * from a clean slate every time makes the step idempotent: re-running it after a crash stages the
 * same deployment. Kernel types and extensions have no Host operation: they are recorded as
 * unsupported on this host.
 */
import type { Host, OsUpdater } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import { kernelArgumentChange } from '../logic/nodeplan/kernel-arguments.js';
import { canonicalizeKernelType, KernelType } from '../logic/nodeplan/kernel-type.js';
import {
  needsOsChanges,
  osChangesString,
  type MachineConfigDiff,
} from '../logic/nodeplan/machine-config-diff.js';
import type { NodeConfig } from '../logic/nodeplan/node-config.js';
import type { CrashPoints } from './crash-points.js';
import { DaemonError, errorText } from './daemon-errors.js';
import type { DaemonEvents } from './daemon-events.js';
import type { DaemonMetrics } from './daemon-metrics.js';

/** What a CoreOS host's OS updater adds: kernel swaps (rpm-ostree override). */
interface KernelSwitching {
  revertKernelSwap(signal?: AbortSignal): Promise<void>;
  switchKernel(kernelType: string, signal?: AbortSignal): Promise<void>;
}

function kernelSwitching(os: OsUpdater): KernelSwitching | undefined {
  const k = os as Partial<KernelSwitching>;
  return typeof k.revertKernelSwap === 'function' && typeof k.switchKernel === 'function'
    ? (os as unknown as KernelSwitching)
    : undefined;
}

export interface OsChangeDeps {
  readonly host: Host;
  readonly log: Logger;
  readonly events: DaemonEvents;
  readonly metrics: DaemonMetrics;
  readonly crash: CrashPoints;
  readonly signal?: AbortSignal;
}

/** What could not be done on this host (logged, and in the AppliedFilesAndOS message). */
export interface OsChangeReport {
  readonly unsupported: readonly string[];
}

/**
 * Stages the target OS image when the update still has one, with upstream's OSUpgradeApplied or
 * OSUpgradeSkipped event.
 */
async function stageOsImage(
  deps: OsChangeDeps,
  effective: MachineConfigDiff,
  from: NodeConfig,
  to: NodeConfig,
  booted: string | undefined,
): Promise<void> {
  const { host, log, events } = deps;
  if (effective.osUpdate && to.osImageURL !== '') {
    deps.crash.reached('stage-image');
    log.info('staging OS image', { image: to.osImageURL, booted: booted ?? '(unknown)' });
    try {
      await host.os.stageImage(to.osImageURL, deps.signal);
    } catch (e) {
      deps.metrics.pivotError();
      throw DaemonError.degraded(`failed to update OS to ${to.osImageURL}: ${errorText(e)}`, e);
    }
    deps.crash.reached('image-staged');
    await events.emit(
      'Normal',
      'OSUpgradeApplied',
      `OS upgrade applied; new MachineConfig (${to.name}) has new OS image (${to.osImageURL})`,
    );
  } else {
    log.info('the booted OS image is the target; no rebase', {
      image: to.osImageURL,
      booted: booted ?? '(unknown)',
    });
    await events.emit(
      'Normal',
      'OSUpgradeSkipped',
      `OS upgrade skipped; new MachineConfig (${to.name}) has same OS image (${to.osImageURL}) as old MachineConfig (${from.name})`,
    );
  }
}

export async function applyOsChanges(
  deps: OsChangeDeps,
  diff: MachineConfigDiff,
  from: NodeConfig,
  to: NodeConfig,
): Promise<OsChangeReport> {
  if (!needsOsChanges(diff, to)) return { unsupported: [] };
  const { host, log, events } = deps;
  const kernel = canonicalizeKernelType(to.kernelType);
  const before = await host.os.status();
  const booted = before.booted.image;
  const imageDiffers =
    booted === undefined ? from.osImageURL !== to.osImageURL : booted !== to.osImageURL;
  // Upstream drops the OS update when the booted image already is the target ("Already in
  // desired image"), but only after its OSUpdateStarted event said "Upgrading OS": a forcefile
  // repair then announces an upgrade that does not happen. We drop it first, so the events tell
  // what is done; an OS step with nothing left to change announces nothing.
  const effective: MachineConfigDiff =
    diff.osUpdate && !imageDiffers ? { ...diff, osUpdate: false } : diff;
  const announced = needsOsChanges(effective, to);
  const reason = osChangesString(effective) || `Updating to a target config with ${kernel} kernel`;
  if (announced) await events.emit('Normal', 'OSUpdateStarted', reason);
  log.info('applying OS changes', {
    reason: announced ? reason : 'none (the forcefile re-applies the config)',
    osImageURL: to.osImageURL,
  });

  deps.crash.reached('os-cleanup');
  await host.os.cleanupPending(deps.signal);
  const kernels = kernelSwitching(host.os);
  const swapKernel = effective.osUpdate || diff.kernelType;
  if (kernels !== undefined && swapKernel) await kernels.revertKernelSwap(deps.signal);
  await stageOsImage(deps, effective, from, to, booted);

  if (diff.kargs) {
    const change = kernelArgumentChange(from.kernelArguments, to.kernelArguments);
    deps.crash.reached('update-kargs');
    try {
      await host.os.updateKernelArguments(change, deps.signal);
    } catch (e) {
      throw DaemonError.degraded(`failed to update kernel arguments: ${errorText(e)}`, e);
    }
    log.info('updated kernel arguments', { deleted: change.delete, appended: change.append });
    deps.crash.reached('kargs-updated');
  }

  const unsupported: string[] = [];
  if (kernels !== undefined) {
    if (swapKernel && kernel !== KernelType.Default) {
      try {
        await kernels.switchKernel(kernel, deps.signal);
      } catch (e) {
        throw DaemonError.degraded(`failed to switch to the ${kernel} kernel: ${errorText(e)}`, e);
      }
      log.info('switched kernel', { kernelType: kernel });
    }
  } else if (diff.kernelType || kernel !== KernelType.Default) {
    unsupported.push(`kernel type ${kernel}`);
  }
  if (diff.extensions) unsupported.push(`extensions [${to.extensions.join(' ')}]`);
  if (unsupported.length > 0)
    log.warn(`not supported on the ${host.kind} host; skipped`, { changes: unsupported });

  const after = await host.os.status();
  log.info('OS changes staged', {
    booted: after.booted.checksum,
    pending: after.pending?.checksum,
    pendingImage: after.pending?.image,
    pendingKernelArguments: after.pending?.kernelArguments,
  });
  if (announced) await events.emit('Normal', 'OSUpdateStaged', 'Changes to OS staged');
  return { unsupported };
}

/**
 * The OS part of an update (upstream applyOSChanges, docs/reference/daemon.md §7.8) through the Host's
 * OsUpdater: drop whatever was staged before, stage the new OS image when the booted one differs,
 * and move the kernel arguments (the old list deleted, the new one appended,
 * docs/reference/vectors.md §D1). Starting
 * from a clean slate every time makes the step idempotent: re-running it after a crash stages the
 * same deployment. Kernel types need a host that swaps kernels (CoreOS) and extensions have no
 * Host operation: elsewhere they are recorded as unsupported on this host. The plan
 * (update-plan.ts) says what changes; this only does it.
 */
import type { Host } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import { KernelType } from '../logic/nodeplan/kernel-type.js';
import type { OsPlan } from '../logic/nodeplan/update-plan.js';
import type { CrashPoints } from './crash-points.js';
import { DaemonError, errorText } from './daemon-errors.js';
import type { DaemonEvents } from './daemon-events.js';
import type { DaemonMetrics } from './daemon-metrics.js';

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

export async function applyOsChanges(deps: OsChangeDeps, plan: OsPlan): Promise<OsChangeReport> {
  if (!plan.apply) return { unsupported: [] };
  const { host, log, events } = deps;
  const os = host.os;
  if (plan.announce) await events.emit('Normal', 'OSUpdateStarted', plan.reason);
  log.info('applying OS changes', {
    reason: plan.announce ? plan.reason : 'none (the forcefile re-applies the config)',
    image: plan.stageImage,
  });

  deps.crash.reached('os-cleanup');
  await os.cleanupPending(deps.signal);
  const kernel = plan.kernelType;
  const canSwitch = os.revertKernelSwap !== undefined && os.switchKernel !== undefined;
  if (kernel.swap) await os.revertKernelSwap?.(deps.signal);
  if (plan.stageImage !== undefined) {
    const image = plan.stageImage;
    deps.crash.reached('stage-image');
    log.info('staging OS image', { image });
    try {
      await os.stageImage(image, deps.signal);
    } catch (e) {
      deps.metrics.pivotError();
      throw DaemonError.degraded(`failed to update OS to ${image}: ${errorText(e)}`, e);
    }
    deps.metrics.pivotSucceeded();
    deps.crash.reached('image-staged');
  } else if (plan.imageAlreadyBooted) {
    log.info('the booted OS image is already the target; no rebase');
  }
  await events.emit('Normal', plan.upgradeEvent.reason, plan.upgradeEvent.message);

  if (plan.kernelArguments !== undefined) {
    const change = plan.kernelArguments;
    deps.crash.reached('update-kargs');
    try {
      await os.updateKernelArguments(change, deps.signal);
    } catch (e) {
      throw DaemonError.degraded(`failed to update kernel arguments: ${errorText(e)}`, e);
    }
    log.info('updated kernel arguments', { deleted: change.delete, appended: change.append });
    deps.crash.reached('kargs-updated');
  }

  const unsupported: string[] = [];
  if (canSwitch) {
    if (kernel.swap && kernel.target !== KernelType.Default) {
      try {
        await os.switchKernel?.(kernel.target, deps.signal);
      } catch (e) {
        throw DaemonError.degraded(
          `failed to switch to the ${kernel.target} kernel: ${errorText(e)}`,
          e,
        );
      }
      log.info('switched kernel', { kernelType: kernel.target });
    }
  } else if (kernel.changed || kernel.target !== KernelType.Default) {
    unsupported.push(`kernel type ${kernel.target}`);
  }
  if (plan.extensions !== undefined) unsupported.push(`extensions [${plan.extensions.join(' ')}]`);
  if (unsupported.length > 0)
    log.warn(`not supported on the ${host.kind} host; skipped`, { changes: unsupported });

  const after = await os.status();
  log.info('OS changes staged', {
    booted: after.booted.checksum,
    pending: after.pending?.checksum,
    pendingImage: after.pending?.image,
    pendingKernelArguments: after.pending?.kernelArguments,
  });
  if (plan.announce) await events.emit('Normal', 'OSUpdateStaged', 'Changes to OS staged');
  return { unsupported };
}

/**
 * The OS part of an update (upstream applyOSChanges, docs/reference/daemon.md §7.8) through the Host's
 * OsUpdater: drop whatever was staged before, stage the new OS image when the booted one differs,
 * and move the kernel arguments (the old list deleted, the new one appended,
 * docs/reference/vectors.md §D1). Starting
 * from a clean slate every time makes the step idempotent: re-running it after a crash stages the
 * same deployment. Kernel types need a host that swaps kernels (CoreOS); extensions are layered
 * last, on the OS commit just staged (ostree-extensions.ts) or installed by rpm-ostree. A host
 * that cannot do what the config asks fails the update with the reason (Degraded, rolled back),
 * never reports Done for it. The plan (update-plan.ts) says what changes; this only does it.
 */
import type { Host } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import { KernelType } from '../logic/nodeplan/kernel-type.js';
import type { OsPlan } from '../logic/nodeplan/update-plan.js';
import type { CrashPoints } from './crash-points.js';
import { DaemonError } from './daemon-errors.js';
import type { DaemonEvents } from './daemon-events.js';
import type { DaemonMetrics } from '../ports/daemon-metrics.js';
import { errorText } from '../lib/error-text.js';

export interface OsChangeDeps {
  readonly host: Host;
  readonly log: Logger;
  readonly events: DaemonEvents;
  readonly metrics: DaemonMetrics;
  readonly crash: CrashPoints;
  readonly signal?: AbortSignal;
}

export async function applyOsChanges(deps: OsChangeDeps, plan: OsPlan): Promise<void> {
  if (!plan.apply) return;
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

  await applyKernelType(deps, kernel, canSwitch);
  await applyExtensions(deps, plan);

  const after = await os.status();
  log.info('OS changes staged', {
    booted: after.booted.checksum,
    pending: after.pending?.checksum,
    pendingImage: after.pending?.image,
    pendingKernelArguments: after.pending?.kernelArguments,
  });
  if (plan.announce) await events.emit('Normal', 'OSUpdateStaged', 'Changes to OS staged');
}

async function applyKernelType(
  deps: OsChangeDeps,
  kernel: OsPlan['kernelType'],
  canSwitch: boolean,
): Promise<void> {
  if (!canSwitch) {
    if (kernel.changed || kernel.target !== KernelType.Default)
      throw DaemonError.degraded(
        `cannot apply kernelType ${kernel.target}: the ${deps.host.kind} host has a single kernel`,
      );
    return;
  }
  if (!kernel.swap || kernel.target === KernelType.Default) return;
  try {
    await deps.host.os.switchKernel?.(kernel.target, deps.signal);
  } catch (e) {
    throw DaemonError.degraded(
      `failed to switch to the ${kernel.target} kernel: ${errorText(e)}`,
      e,
    );
  }
  deps.log.info('switched kernel', { kernelType: kernel.target });
}

/** Last, on top of whatever OS commit is now staged (a new OS image has none of the old layers). */
async function applyExtensions(deps: OsChangeDeps, plan: OsPlan): Promise<void> {
  const change = plan.extensions;
  if (change === undefined) return;
  const os = deps.host.os;
  if (os.applyExtensions === undefined)
    throw DaemonError.degraded(
      `cannot install extensions [${change.extensions.join(' ')}]: the ${deps.host.kind} host has no way to install extensions`,
    );
  deps.crash.reached('apply-extensions');
  try {
    await os.applyExtensions(change, deps.signal);
  } catch (e) {
    throw DaemonError.degraded(`failed to apply extensions: ${errorText(e)}`, e);
  }
  deps.log.info('applied extensions', { image: change.image, extensions: change.extensions });
}

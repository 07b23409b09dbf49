/**
 * The render controller's Warning events about a MachineConfig it accepts but that will not do what
 * its writer meant (docs/render.md): one `IgnitionValidationWarning` per Ignition warning in
 * `spec.config` (a typo such as `storage.filez` is `Unused key filez`), and `NoMatchingPool` when
 * no MachineConfigPool selects its labels. The API server said the same in `Warning` headers at
 * write time; the events stay where `kubectl get events` and `kubectl describe` look, and the pool
 * check runs against the pools as they are once the render delay has passed, and again five seconds
 * later before it warns, so a config written just before its pool (as a bootstrap or `kubectl apply
 * -f` of a folder writes them) is not warned about.
 *
 * Configs a pool controls (rendered configs) are the controller's own and are not looked at.
 */
import { EventType } from '../../api/core/v1/event.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { Resources } from '../../api/resource-refs.js';
import { jsonEqual } from '../../lib/json-equal.js';
import {
  ignitionWarnings,
  MachineConfigWarningReason,
  noPoolWarning,
} from '../../logic/render/machine-config-warnings.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import { Controller } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/event-recorder.js';
import { objectKey } from '../../runtime/informer.js';
import type { Reconciler, ReconcileResult } from '../../runtime/reconciler.js';
import type { RateLimiterOptions } from '../../runtime/work-queue.js';
import { waitForCache } from '../common/wait-for-caches.js';
import type { McoInformers } from '../mco-informers.js';

export interface MachineConfigNoticesOptions {
  readonly informers: Pick<McoInformers, 'pools' | 'machineConfigs'>;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: EventRecorder;
  /** How long after a change the config is looked at (the render delay). */
  readonly delayMs: number;
  readonly rateLimiter?: RateLimiterOptions;
}

const NoticesControllerName = 'machineconfigcontroller-rendercontroller-notices';

const controlledByPool = (mc: MachineConfig): boolean =>
  mc.metadata.ownerReferences?.some(
    (o) => o.controller === true && o.kind === 'MachineConfigPool',
  ) === true;

/** How long a config is given to find its pool before NoMatchingPool: kubectl writes a folder's pool after its configs. */
const SecondLookMs = 5000;

class MachineConfigNotices implements Reconciler {
  readonly #o: MachineConfigNoticesOptions;
  /** Configs no pool selected at their first look, by name and resourceVersion. */
  readonly #lookedOnce = new Map<string, string>();

  constructor(options: MachineConfigNoticesOptions) {
    this.#o = options;
  }

  async reconcile(name: string): Promise<ReconcileResult | undefined> {
    const { informers, events } = this.#o;
    const mc = informers.machineConfigs.get(name);
    if (mc === undefined || mc.metadata.deletionTimestamp !== undefined) return undefined;
    const warn = (reason: string, message: string) =>
      events.event(Resources.machineConfig, mc, EventType.Warning, reason, message);
    // Ignition's warnings are said at the first look of each version.
    if (this.#lookedOnce.get(name) !== mc.metadata.resourceVersion)
      for (const text of ignitionWarnings(mc))
        await warn(MachineConfigWarningReason.ignition, text);
    const pools: MachineConfigPool[] = informers.pools.list();
    const noPool = noPoolWarning(mc, pools);
    const version = mc.metadata.resourceVersion ?? '';
    if (noPool === undefined) {
      this.#lookedOnce.delete(name);
      return undefined;
    }
    // A second look, a while later, before the warning: the pool may be on its way.
    if (this.#lookedOnce.get(name) !== version) {
      this.#lookedOnce.set(name, version);
      return { requeueAfterMs: Math.max(SecondLookMs, this.#o.delayMs) };
    }
    this.#lookedOnce.delete(name);
    await warn(MachineConfigWarningReason.noPool, noPool);
    return undefined;
  }
}

export function createMachineConfigNoticesController(
  options: MachineConfigNoticesOptions,
): Controller {
  const { informers, delayMs } = options;
  const controller = new Controller({
    name: NoticesControllerName,
    reconciler: new MachineConfigNotices(options),
    clock: options.clock,
    log: options.log,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  });
  waitForCache(controller, informers.pools);
  waitForCache(controller, informers.machineConfigs);
  const later = (mc: MachineConfig): void => {
    if (!controlledByPool(mc)) controller.enqueueAfter(objectKey(mc), delayMs);
  };
  informers.machineConfigs.addHandler({
    onAdd: later,
    onUpdate: (old, mc) => {
      if (!jsonEqual(old.spec, mc.spec) || !jsonEqual(old.metadata.labels, mc.metadata.labels))
        later(mc);
    },
  });
  return controller;
}

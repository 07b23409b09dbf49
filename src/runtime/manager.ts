/**
 * Manager: runs a component's informers, controllers and other long-running tasks together, as
 * controller-runtime's manager does:
 *
 * - informers (shared caches) start at once, leader or not, so a standby is warm when it takes
 *   over;
 * - controllers and leader-only runnables start once the caches have synced and, with leader
 *   election configured, only while this process holds the Lease; losing it stops them and makes
 *   `run` reject with LeaderElectionLostError (the process should exit, as upstream's do);
 * - everything stops when the caller's signal aborts (cmd/ aborts it on SIGTERM): controllers
 *   finish their in-flight reconciles, the Lease is released, then the informers stop;
 * - a runnable that fails stops the others, and `run` rejects with its error.
 */
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Controller } from './controller.js';
import type { SyncedSource } from './informer.js';
import { LeaderElector, type LeaderElectionConfig } from './leader-election.js';
import { errorText } from '../lib/error-text.js';
import type { ControllerMetrics } from '../ports/controller-metrics.js';

export interface Runnable {
  run(signal: AbortSignal): Promise<void>;
}

export type ManagerLeaderElection = Omit<
  LeaderElectionConfig,
  'clock' | 'log' | 'onStartedLeading' | 'onStoppedLeading'
>;

export interface ManagerOptions {
  readonly clock: Clock;
  readonly log: Logger;
  /** Run controllers only while holding this Lease (`--leader-elect`). */
  readonly leaderElection?: ManagerLeaderElection;
  /** Every controller added reports here (controller_runtime_* and workqueue_* metrics). */
  readonly controllerMetrics?: ControllerMetrics;
}

type Guard = (what: string, under: AbortSignal, p: Promise<void>) => Promise<void>;

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    signal.addEventListener(
      'abort',
      () => {
        resolve();
      },
      { once: true },
    );
  });
}

export class LeaderElectionLostError extends Error {
  constructor(lease: string) {
    super(`leader election lost: ${lease}`);
    this.name = 'LeaderElectionLostError';
  }
}

export class Manager {
  readonly #options: ManagerOptions;
  readonly #informers = new Set<SyncedSource>();
  readonly #controllers = new Set<Controller>();
  readonly #leaderRunnables = new Set<Runnable>();
  readonly #alwaysRunnables = new Set<Runnable>();
  #elector: LeaderElector | undefined;
  #running = false;

  constructor(options: ManagerOptions) {
    this.#options = options;
  }

  addInformer(informer: SyncedSource): this {
    this.#informers.add(informer);
    return this;
  }

  /** Adds the controller and the informers it watches. */
  addController(controller: Controller): this {
    this.#controllers.add(controller);
    if (this.#options.controllerMetrics !== undefined)
      controller.reportTo(this.#options.controllerMetrics);
    for (const informer of controller.informers()) this.#informers.add(informer);
    return this;
  }

  /** A task that runs while leading (default) or always (`leaderOnly: false`). */
  addRunnable(runnable: Runnable, options: { readonly leaderOnly?: boolean } = {}): this {
    (options.leaderOnly === false ? this.#alwaysRunnables : this.#leaderRunnables).add(runnable);
    return this;
  }

  hasSynced(): boolean {
    return [...this.#informers].every((i) => i.hasSynced());
  }

  /** True while this process holds the Lease, or always without leader election. */
  isLeader(): boolean {
    return this.#elector === undefined ? this.#running : this.#elector.isLeader();
  }

  /** Runs until `signal` aborts (resolves) or leadership is lost or a runnable fails (rejects). */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error('manager is already running');
    this.#running = true;
    const { log } = this.#options;
    const failed = new AbortController();
    const outcome: { failure?: Error } = {};
    const fail = (e: unknown): void => {
      outcome.failure ??= e instanceof Error ? e : new Error(String(e));
      failed.abort(e);
    };
    const stop = AbortSignal.any([signal, failed.signal]);
    const informersStop = new AbortController();

    /** Errors after the runnable's own signal aborted are part of stopping, not failures. */
    const guard: Guard = (what, under, p) =>
      p.catch((e: unknown) => {
        if (under.aborted) return;
        log.error(`${what} failed`, { error: errorText(e) });
        fail(e);
      });

    const informerRuns = [...this.#informers].map((i) =>
      guard(`informer ${i.ref.plural}`, informersStop.signal, i.run(informersStop.signal)),
    );
    const alwaysRuns = [...this.#alwaysRunnables].map((r) => guard('runnable', stop, r.run(stop)));
    try {
      const le = this.#options.leaderElection;
      if (le === undefined) {
        await this.#lead(stop, guard);
      } else {
        const leadership = { lost: false };
        this.#elector = new LeaderElector({
          ...le,
          clock: this.#options.clock,
          log,
          onStartedLeading: (leading) => this.#lead(leading, guard),
          onStoppedLeading: () => {
            if (!stop.aborted) leadership.lost = true;
          },
        });
        await this.#elector.run(stop);
        if (leadership.lost) fail(new LeaderElectionLostError(`${le.namespace}/${le.name}`));
      }
      if (!failed.signal.aborted) failed.abort(); // stop the always-runnables too
      await Promise.all(alwaysRuns);
    } finally {
      informersStop.abort();
      await Promise.all(informerRuns);
      this.#running = false;
    }
    if (outcome.failure !== undefined) throw outcome.failure;
  }

  /** Waits for the caches, then runs controllers and leader-only runnables until `signal` aborts. */
  async #lead(signal: AbortSignal, guard: Guard): Promise<void> {
    try {
      await Promise.all([...this.#informers].map((i) => i.waitForSync(signal)));
    } catch {
      return; // aborted before the caches synced
    }
    this.#options.log.info('caches synced, starting controllers', {
      controllers: [...this.#controllers].map((c) => c.name),
    });
    await Promise.all([
      ...[...this.#controllers].map((c) => guard(`controller ${c.name}`, signal, c.run(signal))),
      ...[...this.#leaderRunnables].map((r) => guard('runnable', signal, r.run(signal))),
      aborted(signal),
    ]);
  }
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's algorithm
 * (k8s.io/client-go/tools/leaderelection):
 *
 * - acquire: every `retryPeriod` (jittered up to ×2.2, as JitterUntil with factor 1.2) read the
 *   Lease; take it when it is absent, released (empty holder), ours, or its holder has not renewed
 *   for `leaseDurationSeconds` as observed on OUR clock since the record last changed (so clock
 *   skew between candidates does not matter); writes are PUTs carrying the resourceVersion read,
 *   so two candidates racing for one expired lease cannot both win (one gets 409 Conflict);
 * - lead: `onStartedLeading(signal)` runs; the leader renews every `retryPeriod` and, if it
 *   cannot renew within `renewDeadline`, stops leading (the signal aborts) so it stops acting
 *   before anyone else may take over (`leaseDuration` > `renewDeadline`);
 * - shutdown: when the caller's signal aborts, the leader waits for its work to return, then
 *   releases the Lease (holder emptied, duration 1 s) so a successor takes over within one retry
 *   period instead of a whole lease duration (ReleaseOnCancel).
 *
 * A new holder sets `acquireTime` and increments `leaseTransitions`; renewals only move
 * `renewTime`. Times are MicroTime: RFC 3339 with six fractional digits.
 */
import type { Lease, LeaseSpec } from '../api/coordination/v1/lease.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { type Clock } from '../ports/clock.js';
import { rfc3339Micro } from '../api/meta/v1/time.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { errorText } from '../lib/error-text.js';

export interface LeaderElectionTimings {
  /** How long a non-leader waits after the last observed renewal before taking over. */
  readonly leaseDurationMs: number;
  /** How long the leader keeps retrying a renewal before it gives up leading. */
  readonly renewDeadlineMs: number;
  /** Pause between attempts to acquire or renew. */
  readonly retryPeriodMs: number;
}

/**
 * OpenShift's timings, used by the MCO (cmd/common/helpers.go GetLeaderElectionConfig →
 * library-go pkg/config/leaderelection LeaderElectionDefaulting): 137 s lease, 107 s renew
 * deadline, 26 s retry. They tolerate 30 s of clock skew and 78 s of API server downtime; a
 * graceful handover takes at most one retry period, a crash at most 163 s.
 */
export const UpstreamLeaderElectionTimings: LeaderElectionTimings = {
  leaseDurationMs: 137_000,
  renewDeadlineMs: 107_000,
  retryPeriodMs: 26_000,
};

/** client-go's JitterFactor for the acquire loop. */
const JitterFactor = 1.2;

export interface LeaderElectionConfig extends LeaderElectionTimings {
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  /** Where the Lease lives (MCO: `openshift-machine-config-operator`). */
  readonly namespace: string;
  /** The Lease name (MCO: `machine-config-controller`, `machine-config`). */
  readonly name: string;
  /** This candidate: unique per process (MCO: `<hostname>_<uuid>`). */
  readonly identity: string;
  /** Release the Lease when the signal aborts (default true). */
  readonly releaseOnCancel?: boolean;
  /** Runs while leading; `signal` aborts when leadership ends. Awaited before releasing. */
  readonly onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called once after leading ends (lost, or released on shutdown). */
  readonly onStoppedLeading?: () => void;
  /** Called when the observed holder changes (including to us). */
  readonly onNewLeader?: (identity: string) => void;
  /** A number in [0, 1) for jitter (default Math.random). */
  readonly random?: () => number;
}

/** Throws unless leaseDuration > renewDeadline > retryPeriod × 1.2 (client-go's checks). */
export function validateTimings(t: LeaderElectionTimings): void {
  if (t.leaseDurationMs < 1000) throw new Error('leaseDuration must be at least 1 s');
  if (t.leaseDurationMs <= t.renewDeadlineMs) {
    throw new Error('leaseDuration must be greater than renewDeadline');
  }
  if (t.renewDeadlineMs <= JitterFactor * t.retryPeriodMs) {
    throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
  }
  if (t.retryPeriodMs <= 0) throw new Error('retryPeriod must be greater than zero');
}

export class LeaderElector {
  readonly #config: LeaderElectionConfig;
  readonly #random: () => number;
  /** The last Lease spec read, its resourceVersion, and when (our clock) it last changed. */
  #observed: LeaseSpec | undefined;
  #observedRaw = '';
  #observedAt = 0;
  #observedLease: Lease | undefined;
  #leading = false;
  #reportedLeader: string | undefined;

  constructor(config: LeaderElectionConfig) {
    validateTimings(config);
    this.#config = config;
    this.#random = config.random ?? Math.random;
  }

  isLeader(): boolean {
    return this.#leading;
  }

  /** The holder we last observed ('' when released, undefined before the first read). */
  getLeader(): string | undefined {
    return this.#observed?.holderIdentity;
  }

  /**
   * Campaigns until leading, leads until the lease is lost or `signal` aborts, then resolves.
   * Resolves without leading if `signal` aborts first.
   */
  async run(signal: AbortSignal): Promise<void> {
    const acquired = await this.#acquire(signal);
    if (!acquired) return;
    const { log, identity, onStartedLeading, onStoppedLeading } = this.#config;
    log.info('became leader', { lease: this.#leaseName(), identity });
    const leading = new AbortController();
    const work = Promise.resolve()
      .then(() => onStartedLeading(leading.signal))
      .catch((e: unknown) => {
        log.error('leader work failed', { error: errorText(e) });
      });
    try {
      await this.#renewLoop(signal);
    } finally {
      this.#leading = false;
      leading.abort(new Error('leadership ended'));
      await work;
      if (signal.aborted && this.#config.releaseOnCancel !== false) await this.#release();
      log.info('stopped leading', { lease: this.#leaseName(), identity });
      onStoppedLeading?.();
    }
  }

  async #acquire(signal: AbortSignal): Promise<boolean> {
    const { clock, retryPeriodMs, log } = this.#config;
    log.info('attempting to acquire leader lease', { lease: this.#leaseName() });
    while (!signal.aborted) {
      if (await this.#tryAcquireOrRenew(signal)) {
        this.#leading = true;
        return true;
      }
      const wait = retryPeriodMs * (1 + this.#random() * JitterFactor);
      if (!(await waitedOut(clock, wait, signal))) break;
    }
    return false;
  }

  /** Renews every retry period until a renewal misses its deadline or `signal` aborts. */
  async #renewLoop(signal: AbortSignal): Promise<void> {
    const { clock, retryPeriodMs, renewDeadlineMs, log } = this.#config;
    for (;;) {
      if (!(await waitedOut(clock, retryPeriodMs, signal))) return;
      const renewed = await this.#renewWithin(clock.now() + renewDeadlineMs, signal);
      if (renewed === 'aborted') return;
      if (!renewed) {
        log.error('failed to renew lease within the renew deadline', {
          lease: this.#leaseName(),
          renewDeadlineMs,
        });
        return;
      }
    }
  }

  /** Tries to renew every retry period until `deadline` (client-go's PollImmediateUntil). */
  async #renewWithin(deadline: number, signal: AbortSignal): Promise<boolean | 'aborted'> {
    const { clock, retryPeriodMs } = this.#config;
    for (;;) {
      const attempt = withDeadline(clock, signal, deadline);
      let renewed: boolean;
      try {
        renewed = await this.#tryAcquireOrRenew(attempt.signal);
      } finally {
        attempt.dispose();
      }
      if (signal.aborted) return 'aborted';
      if (renewed) return true;
      const left = deadline - clock.now();
      if (left <= 0) return false;
      if (!(await waitedOut(clock, Math.min(retryPeriodMs, left), signal))) return 'aborted';
      if (clock.now() >= deadline) return false;
    }
  }

  /** One attempt, as client-go's tryAcquireOrRenew. Never throws; false on any failure. */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { client, clock, identity, leaseDurationMs } = this.#config;
    const now = clock.now();
    const nowMicro = rfc3339Micro(now);
    const desired: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.floor(leaseDurationMs / 1000),
      acquireTime: nowMicro,
      renewTime: nowMicro,
      leaseTransitions: 0,
    };
    try {
      const current = await this.#getOrCreate(desired, signal);
      if (current === 'created') return true;
      const spec = current.spec ?? {};
      this.#observe(current, now);
      const holder = spec.holderIdentity ?? '';
      if (holder !== '' && holder !== identity && this.#leaseValid(now)) return false;
      const mine = holder === identity;
      const next: LeaseSpec = {
        ...spec,
        ...desired,
        acquireTime: mine ? (spec.acquireTime ?? nowMicro) : nowMicro,
        leaseTransitions: mine ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      };
      const updated = await client.update<Lease>(
        Resources.lease,
        { ...current, spec: next },
        {
          signal,
        },
      );
      this.#observe(updated, clock.now());
      return true;
    } catch (e) {
      if (!signal.aborted) this.#attemptFailed(e);
      return false;
    }
  }

  /** Losing a race is routine; any other refusal (a missing grant, the API down) is an error to see, as client-go logs it. */
  #attemptFailed(e: unknown): void {
    const { log } = this.#config;
    const fields = { lease: this.#leaseName(), error: errorText(e) };
    if (isStatusError(e, 'Conflict') || isStatusError(e, 'AlreadyExists'))
      log.debug('lease acquire/renew attempt failed', fields);
    else log.error('lease acquire/renew attempt failed', fields);
  }

  /** Reads the Lease; creates it held by us when absent ('created'). */
  async #getOrCreate(desired: LeaseSpec, signal: AbortSignal): Promise<Lease | 'created'> {
    const { client, clock, namespace, name } = this.#config;
    try {
      return await client.get<Lease>(Resources.lease, name, namespace, signal);
    } catch (e) {
      if (!isStatusError(e, 'NotFound')) throw e;
    }
    const created = await client.create<Lease>(
      Resources.lease,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: desired,
      },
      { signal },
    );
    this.#observe(created, clock.now());
    return 'created';
  }

  /** Like client-go: the holder's lease runs from when WE last saw its record change. */
  #leaseValid(now: number): boolean {
    const seconds = this.#observed?.leaseDurationSeconds ?? 0;
    return this.#observedAt + seconds * 1000 > now;
  }

  #observe(lease: Lease, at: number): void {
    const spec = lease.spec ?? {};
    const raw = JSON.stringify(spec);
    this.#observedLease = lease;
    if (raw !== this.#observedRaw) {
      this.#observed = spec;
      this.#observedRaw = raw;
      this.#observedAt = at;
    }
    const holder = spec.holderIdentity ?? '';
    if (holder !== '' && holder !== this.#reportedLeader) {
      this.#reportedLeader = holder;
      this.#config.onNewLeader?.(holder);
    }
  }

  /** Empties the holder so a successor need not wait out the lease (client-go's release). */
  async #release(): Promise<void> {
    const { client, clock, namespace, name, identity, log } = this.#config;
    if (this.#observed?.holderIdentity !== identity) return;
    const now = rfc3339Micro(clock.now());
    const spec: LeaseSpec = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: this.#observed.leaseTransitions ?? 0,
    };
    const lease: Lease = {
      ...(this.#observedLease ?? { metadata: { name, namespace } }),
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      spec,
    };
    try {
      const released = await client.update<Lease>(Resources.lease, lease);
      this.#observe(released, clock.now());
      log.info('released leader lease', { lease: this.#leaseName() });
    } catch (e) {
      log.warn('failed to release leader lease', {
        lease: this.#leaseName(),
        error: errorText(e),
      });
    }
  }

  #leaseName(): string {
    return `${this.#config.namespace}/${this.#config.name}`;
  }
}

/** Waits on the injected clock; false when the signal aborted (instead of throwing). */
async function waitedOut(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  try {
    await clock.sleep(ms, signal);
    return true;
  } catch {
    return false;
  }
}

/** A signal that aborts with `parent` or when the clock reaches `deadline`. */
function withDeadline(
  clock: Clock,
  parent: AbortSignal,
  deadline: number,
): { signal: AbortSignal; dispose: () => void } {
  const timer = new AbortController();
  const done = new AbortController();
  clock.sleep(Math.max(0, deadline - clock.now()), done.signal).then(
    () => {
      timer.abort(new Error('renew deadline exceeded'));
    },
    () => undefined,
  );
  return {
    signal: AbortSignal.any([parent, timer.signal]),
    dispose: () => {
      done.abort();
    },
  };
}

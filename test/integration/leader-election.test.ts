/**
 * Leader election on a real `mco apiserver` Lease, with test timings (3 s lease, 2 s renew
 * deadline, 0.5 s retry, no jitter so the bounds are exact): two electors → exactly one leader;
 * when the leader stops renewing (dies without releasing) the other takes over once the lease has
 * run out on its own clock: the lease duration after it last saw a renewal, which is at most one
 * retry period after the renewal, checked at most one retry period late; so within lease + 2 ×
 * retry of the death, and not before lease − retry. A graceful stop releases the Lease, so the
 * other takes over within a retry period.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import type { Lease } from '../../src/api/coordination/v1/lease.js';
import { Resources } from '../../src/api/resource-refs.js';
import { silentLogger } from '../../src/ports/logger.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { LeaderElector } from '../../src/runtime/leader-election.js';
import { startApiServerProcess, type ApiServerHandle } from '../support/apiserver-process.js';

const timings = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };
const Micro = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

interface Elector {
  readonly identity: string;
  readonly elector: LeaderElector;
  readonly abort: AbortController;
  readonly done: Promise<void>;
  startedAt?: number;
  stoppedAt?: number;
  leadingSignal?: AbortSignal;
}

function startElector(
  client: ResourceClient,
  identity: string,
  lease: string,
  releaseOnCancel = true,
): Elector {
  const abort = new AbortController();
  const state: Partial<Elector> = {};
  const elector = new LeaderElector({
    client,
    clock: systemClock,
    log: silentLogger,
    namespace: 'openshift-machine-config-operator',
    name: lease,
    identity,
    ...timings,
    releaseOnCancel,
    random: () => 0,
    onStartedLeading: (signal) => {
      state.startedAt = Date.now();
      state.leadingSignal = signal;
    },
    onStoppedLeading: () => {
      state.stoppedAt = Date.now();
    },
  });
  return Object.assign(state, { identity, elector, abort, done: elector.run(abort.signal) });
}

async function eventually(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('leader election against mco apiserver', () => {
  let server: ApiServerHandle;
  let clientA: ResourceClient;
  let clientB: ResourceClient;

  beforeAll(async () => {
    server = await startApiServerProcess();
    // One client per elector, as two processes would have.
    clientA = createKubeClient({ kubeconfigPath: server.kubeconfigPath });
    clientB = createKubeClient({ kubeconfigPath: server.kubeconfigPath });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('elects exactly one leader; a dead leader is replaced within the lease duration', async () => {
    // Neither releases on stop, so stopping the leader is its death: its renewals just end.
    const a = startElector(clientA, 'a', 'dead-leader', false);
    const b = startElector(clientB, 'b', 'dead-leader', false);
    await eventually('a leader', () => a.elector.isLeader() || b.elector.isLeader(), 5000);
    // Watch both for a while: never two leaders, never none.
    const until = Date.now() + 4000;
    while (Date.now() < until) {
      expect(Number(a.elector.isLeader()) + Number(b.elector.isLeader())).toBe(1);
      await new Promise((r) => setTimeout(r, 50));
    }
    const [leader, follower] = a.elector.isLeader() ? [a, b] : [b, a];
    const lease = await clientA.get<Lease>(
      Resources.lease,
      'dead-leader',
      'openshift-machine-config-operator',
    );
    expect(lease.spec).toMatchObject({
      holderIdentity: leader.identity,
      leaseDurationSeconds: 3,
      leaseTransitions: 0,
    });
    expect(lease.spec?.acquireTime).toMatch(Micro);
    expect(lease.spec?.renewTime).toMatch(Micro);
    expect(follower.startedAt).toBeUndefined();

    leader.abort.abort();
    await leader.done;
    const diedAt = Date.now();
    await eventually('the takeover', () => follower.elector.isLeader(), 10_000);
    const took = Date.now() - diedAt;
    expect(took).toBeGreaterThanOrEqual(timings.leaseDurationMs - timings.retryPeriodMs);
    expect(took).toBeLessThanOrEqual(timings.leaseDurationMs + 2 * timings.retryPeriodMs + 300);
    const after = await clientB.get<Lease>(
      Resources.lease,
      'dead-leader',
      'openshift-machine-config-operator',
    );
    expect(after.spec).toMatchObject({ holderIdentity: follower.identity, leaseTransitions: 1 });
    expect(after.spec?.acquireTime).not.toBe(lease.spec?.acquireTime);
    follower.abort.abort();
    await follower.done;
  }, 30_000);

  it('a leader that cannot renew (its API server went away) stops leading before anyone takes over', async () => {
    const a = startElector(clientA, 'a', 'lost-lease');
    await eventually('a leads', () => a.elector.isLeader(), 5000);
    // Cut a off: every request now fails (connection refused on the closed port).
    await server.stop();
    const cutAt = Date.now();
    await eventually('a stops leading', () => a.stoppedAt !== undefined, 10_000);
    expect(a.leadingSignal?.aborted).toBe(true);
    expect(a.stoppedAt! - cutAt).toBeLessThanOrEqual(
      timings.renewDeadlineMs + timings.retryPeriodMs + 500,
    );
    // It gave up leading before its lease could have expired for others.
    expect(a.stoppedAt! - cutAt).toBeLessThan(timings.leaseDurationMs);
    await a.done;
    await server.restart();
  }, 30_000);

  it('releases the Lease on graceful stop, so the other takes over within a retry period', async () => {
    const a = startElector(clientA, 'a', 'graceful');
    await eventually('a leads', () => a.elector.isLeader(), 5000);
    const b = startElector(clientB, 'b', 'graceful');
    await new Promise((r) => setTimeout(r, 1000));
    expect(b.elector.isLeader()).toBe(false);
    // Every version of the Lease from here on, in order: b may acquire the released Lease before
    // a GET after the stop could read it, so the release is read from the watch.
    const held = await clientA.get<Lease>(
      Resources.lease,
      'graceful',
      'openshift-machine-config-operator',
    );
    const versions: Lease[] = [];
    const watching = new AbortController();
    const watched = clientA.watch<Lease>(
      Resources.lease,
      {
        namespace: 'openshift-machine-config-operator',
        fieldSelector: 'metadata.name=graceful',
        resourceVersion: held.metadata.resourceVersion ?? '',
        signal: watching.signal,
      },
      (event) => {
        if (event.type === 'MODIFIED') versions.push(event.object);
      },
    );
    a.abort.abort();
    await a.done;
    const stoppedAt = Date.now();
    await eventually('b takes over', () => b.elector.isLeader(), 5000);
    // One retry period at most, plus request time.
    expect(Date.now() - stoppedAt).toBeLessThanOrEqual(timings.retryPeriodMs + 300);
    await eventually(
      'the watch sees b hold the Lease',
      () => versions.some((v) => v.spec?.holderIdentity === 'b'),
      5000,
    );
    watching.abort();
    await watched;
    const holders = versions.map((v) => v.spec?.holderIdentity);
    const released = versions.findIndex((v) => v.spec?.holderIdentity === '');
    expect(released, `holders in order: ${holders.join(', ')}`).toBeGreaterThanOrEqual(0);
    expect(versions[released]?.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    // Nobody but b held it after the release (b's renewals may follow its acquisition).
    expect(new Set(holders.slice(released + 1))).toEqual(new Set(['b']));
    b.abort.abort();
    await b.done;
  }, 30_000);
});

import { describe, expect, it } from 'vitest';
import type { Node } from '../api/core/v1/node.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { machineConfig, mcn, node, pool } from '../../test/support/dashboard-objects.js';
import { lookAt, RolloutFollower, type ClusterView, type Judgement } from './rollout-follower.js';

const A = 'rendered-worker-a';
const B = 'rendered-worker-b';
const Settle = 10_000;

const updatedAt = (target: string, machineCount = 1): MachineConfigPool =>
  pool('worker', {
    target,
    current: target,
    machineCount,
    updated: machineCount,
    conditions: { Updated: 'True', Updating: 'False', Degraded: 'False' },
  });

const degradedAt = (target: string, message: string): MachineConfigPool =>
  pool('worker', {
    target,
    current: target,
    machineCount: 1,
    updated: 0,
    degraded: 1,
    conditions: {
      Updated: 'False',
      NodeDegraded: {
        status: 'True',
        reason: '1 nodes are reporting degraded status on sync',
        message,
      },
      Degraded: { status: 'True', message },
    },
  });

function view(
  p: MachineConfigPool,
  nodes: Node[],
  mcns: MachineConfigNode[] = [],
  mcs: MachineConfig[] = [],
): ClusterView {
  return {
    pools: [p],
    nodes,
    machineConfigNodes: new Map(mcns.map((m) => [m.metadata.name ?? '', m])),
    machineConfigs: mcs,
  };
}

/** Judges a sequence of (time, view) looks at pool worker; the judgement of each. */
function follow(looks: readonly (readonly [number, ClusterView])[]): Judgement['kind'][] {
  const f = new RolloutFollower(Settle);
  return looks.map(([t, v]) => {
    const l = lookAt('worker', v, t);
    if (l === undefined) throw new Error('no pool');
    return f.judge(l).kind;
  });
}

const Drift = 'Node worker-0 is reporting: "content mismatch for file \\"/etc/chrony.conf\\""';
const doneNode = () => node('worker-0', { current: A, desired: A, state: 'Done' });
const degradedNode = () =>
  node('worker-0', { current: A, desired: A, state: 'Degraded', reason: 'content mismatch' });
const failedMcn = () =>
  mcn('worker-0', { NodeDegraded: { status: 'True', message: 'upgrade failure' } });
/** What the daemon writes when an update starts: Updated=False resets NodeDegraded. */
const repairingMcn = () =>
  mcn('worker-0', {
    Updated: { status: 'False', message: 'Node worker-0 needs an update' },
    NodeDegraded: { status: 'False', message: 'Action during update to x: upgrade failure' },
    UpdatePrepared: 'Unknown',
  });

describe('RolloutFollower', () => {
  it('after a forcefile: the Degraded found at the start waits, the repair it then sees ends in Done', () => {
    const degraded = view(degradedAt(A, Drift), [degradedNode()], [failedMcn()]);
    const repairing = view(degradedAt(A, Drift), [degradedNode()], [repairingMcn()]);
    const repaired = view(updatedAt(A), [doneNode()], [mcn('worker-0', { Updated: 'True' })]);
    expect(
      follow([
        [0, degraded],
        [800, degraded],
        [1500, repairing],
        [9000, repairing],
        [12_000, repairing],
        [13_000, repaired],
      ]),
    ).toEqual(['wait', 'wait', 'wait', 'wait', 'wait', 'done']);
  });

  it('a Degraded pool nobody touches is the answer once the settle time passed unchanged', () => {
    const degraded = view(degradedAt(A, Drift), [degradedNode()], [failedMcn()]);
    expect(
      follow([
        [0, degraded],
        [9999, degraded],
        [10_000, degraded],
      ]),
    ).toEqual(['wait', 'wait', 'failed']);
  });

  it('a repair that fails again is the answer at once', () => {
    const degraded = view(degradedAt(A, Drift), [degradedNode()], [failedMcn()]);
    const repairing = view(degradedAt(A, Drift), [degradedNode()], [repairingMcn()]);
    expect(
      follow([
        [0, degraded],
        [500, repairing],
        [1000, degraded],
      ]),
    ).toEqual(['wait', 'wait', 'failed']);
  });

  it('drift seen on an Updated pool is the answer at once', () => {
    const updated = view(updatedAt(A), [doneNode()]);
    const degraded = view(degradedAt(A, Drift), [degradedNode()], [failedMcn()]);
    expect(
      follow([
        [0, updated],
        [2000, degraded],
      ]),
    ).toEqual(['wait', 'failed']);
  });

  it('after an apply: a pool still Updated at the old config is not done while things change', () => {
    const mc = (rv: string) => ({
      ...machineConfig('50-worker-chrony'),
      metadata: {
        name: '50-worker-chrony',
        resourceVersion: rv,
        labels: { 'machineconfiguration.openshift.io/role': 'worker' },
      },
    });
    /** The pool with the chrony config among the sources of its target. */
    const sourced = (p: MachineConfigPool): MachineConfigPool => ({
      ...p,
      spec: {
        ...p.spec,
        configuration: {
          name: p.spec.configuration?.name ?? '',
          source: [{ kind: 'MachineConfig', name: '50-worker-chrony' }],
        },
      },
    });
    const before = view(sourced(updatedAt(A)), [doneNode()], [], [mc('5')]);
    const changed = view(sourced(updatedAt(A)), [doneNode()], [], [mc('9')]);
    const rendering = view(
      sourced(
        pool('worker', {
          target: B,
          current: A,
          machineCount: 1,
          conditions: { Updated: 'False', Updating: 'True' },
        }),
      ),
      [node('worker-0', { current: A, desired: B, state: 'Working' })],
      [],
      [mc('9')],
    );
    const done = view(
      sourced(updatedAt(B)),
      [node('worker-0', { current: B, desired: B, state: 'Done' })],
      [],
      [mc('9')],
    );
    expect(
      follow([
        [0, before],
        [6000, changed],
        [12_000, changed],
        [14_000, rendering],
        [20_000, done],
      ]),
    ).toEqual(['wait', 'wait', 'wait', 'wait', 'done']);
  });

  it('an Updated pool nobody touches is done once the settle time passed', () => {
    const updated = view(updatedAt(A), [doneNode()]);
    expect(
      follow([
        [0, updated],
        [5000, updated],
        [10_000, updated],
      ]),
    ).toEqual(['wait', 'wait', 'done']);
  });

  it('a rollout it sees finish is done at once', () => {
    const rolling = view(
      pool('worker', { target: B, current: A, machineCount: 1, conditions: { Updating: 'True' } }),
      [node('worker-0', { current: A, desired: B, state: 'Working' })],
    );
    const done = view(updatedAt(B), [node('worker-0', { current: B, desired: B, state: 'Done' })]);
    expect(
      follow([
        [0, rolling],
        [100, done],
      ]),
    ).toEqual(['wait', 'done']);
  });

  it('an invalid maxUnavailable with nodes waiting for their turn fails after the settle time', () => {
    const stuck: MachineConfigPool = {
      ...pool('worker', {
        target: B,
        current: A,
        machineCount: 1,
        conditions: { Updating: 'True' },
      }),
    };
    const bad = { ...stuck, spec: { ...stuck.spec, maxUnavailable: 'abc' } };
    const v = view(bad, [node('worker-0', { current: A, desired: A, state: 'Done' })]);
    const f = new RolloutFollower(Settle);
    const judge = (t: number) => {
      const l = lookAt('worker', v, t);
      if (l === undefined) throw new Error('no pool');
      return f.judge(l);
    };
    expect(judge(0)).toEqual({ kind: 'wait', settling: true });
    expect(judge(10_000)).toEqual({
      kind: 'failed',
      message:
        'mcp "worker" cannot roll out: maxUnavailable: invalid value for IntOrString: invalid type: string is not a percentage',
    });
  });
});

describe('lookAt', () => {
  it('does not see node heartbeats as a change', () => {
    const n = doneNode();
    const beat: Node = {
      ...n,
      metadata: { ...n.metadata, resourceVersion: '77' },
      status: {
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:10Z' }],
      },
    };
    const a = lookAt('worker', view(updatedAt(A), [n]), 0);
    const b = lookAt('worker', view(updatedAt(A), [beat]), 1);
    expect(a?.fingerprint).toBe(b?.fingerprint);
  });

  it('is undefined for a pool that does not exist', () => {
    expect(lookAt('infra', view(updatedAt(A), []), 0)).toBeUndefined();
  });

  it('waits for a target rendered for the release the cluster moves to', () => {
    const rendered = (release: string): MachineConfig => ({
      ...machineConfig(A),
      metadata: {
        name: A,
        annotations: { 'machineconfiguration.openshift.io/release-image-version': release },
      },
    });
    const v = (release: string) => ({
      ...view(updatedAt(A), [doneNode()], [], [rendered(release)]),
      release: '4.99.2',
    });
    expect(lookAt('worker', v('4.99.1'), 0)?.status).toMatchObject({
      outcome: 'Progressing',
      message: 'Waiting for a rendered config for release 4.99.2...',
    });
    expect(lookAt('worker', v('4.99.2'), 0)?.status.outcome).toBe('Done');
  });
});

import { describe, expect, it } from 'vitest';
import type { Node } from '../../api/core/v1/node.js';
import type { Pod } from '../../api/core/v1/pod.js';
import type { PodDisruptionBudget } from '../../api/policy/v1/pod-disruption-budget.js';
import { drainPreflight } from './drain-preflight.js';

function pod(
  name: string,
  o: {
    node?: string;
    owner?: string;
    labels?: Record<string, string>;
    phase?: string;
    ready?: boolean;
    emptyDir?: boolean;
    nodeSelector?: Record<string, string>;
    tolerations?: Record<string, string>[];
    mirror?: boolean;
  } = {},
): Pod {
  const [kind, owner] = (o.owner ?? '').split('/');
  return {
    metadata: {
      name,
      namespace: 'apps',
      labels: o.labels ?? {},
      ...(o.mirror === true ? { annotations: { 'kubernetes.io/config.mirror': 'x' } } : {}),
      ...(o.owner === undefined
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: kind ?? '',
                name: owner ?? '',
                uid: 'u',
                controller: true,
              },
            ],
          }),
    },
    spec: {
      nodeName: o.node ?? 'worker-0',
      containers: [{ name: 'c' }],
      ...(o.emptyDir === true ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}),
      ...(o.nodeSelector === undefined ? {} : { nodeSelector: o.nodeSelector }),
      ...(o.tolerations === undefined ? {} : { tolerations: o.tolerations }),
    },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  };
}

function budget(
  name: string,
  app: string,
  status: { allowed: number; healthy: number; desired: number },
  policy?: string,
): PodDisruptionBudget {
  return {
    metadata: { name, namespace: 'apps' },
    spec: {
      minAvailable: status.desired,
      selector: { matchLabels: { app } },
      ...(policy === undefined ? {} : { unhealthyPodEvictionPolicy: policy }),
    },
    status: {
      disruptionsAllowed: status.allowed,
      currentHealthy: status.healthy,
      desiredHealthy: status.desired,
      expectedPods: status.healthy,
    },
  };
}

function node(
  name: string,
  o: { labels?: Record<string, string>; taint?: string; cordoned?: boolean } = {},
): Node {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...o.labels } },
    spec: {
      ...(o.cordoned === true ? { unschedulable: true } : {}),
      ...(o.taint === undefined
        ? {}
        : { taints: [{ key: o.taint, effect: 'NoSchedule' as const }] }),
    },
  };
}

const nodes = [node('worker-0'), node('worker-1')];

describe('drainPreflight', () => {
  it('leaves DaemonSet and static pods, evicts managed ones, deletes unmanaged ones; other nodes do not count', () => {
    const r = drainPreflight({
      node: 'worker-0',
      pods: [
        pod('web-1', { owner: 'ReplicaSet/web-5d' }),
        pod('agent-x', { owner: 'DaemonSet/agent' }),
        pod('etcd-worker-0', { mirror: true }),
        pod('scratch'),
        pod('web-2', { owner: 'ReplicaSet/web-5d', node: 'worker-1' }),
      ],
      budgets: [],
      nodes,
    });
    expect(r.pods).toEqual([
      { pod: 'apps/agent-x', outcome: 'stays', why: ['DaemonSet apps/agent'] },
      { pod: 'apps/etcd-worker-0', outcome: 'stays', why: ['static pod (its mirror stays)'] },
      { pod: 'apps/scratch', outcome: 'deleted', why: ['no controller: nothing recreates it'] },
      { pod: 'apps/web-1', outcome: 'evicted', why: [] },
    ]);
    expect(r.counts).toEqual({ stays: 2, blocked: 0, deleted: 1, evicted: 1 });
  });

  it('a budget at zero blocks its Ready pod and names itself; a pod not Ready may go when the budget allows it', () => {
    const zero = budget('db', 'db', { allowed: 0, healthy: 1, desired: 1 });
    const r = drainPreflight({
      node: 'worker-0',
      pods: [pod('db-0', { owner: 'StatefulSet/db', labels: { app: 'db' } })],
      budgets: [zero],
      nodes,
    });
    expect(r.pods[0]).toEqual({
      pod: 'apps/db-0',
      outcome: 'blocked',
      why: ['PodDisruptionBudget apps/db allows no disruption (1 healthy, 1 needed)'],
      blockedBy: 'PodDisruptionBudget apps/db',
    });
    const unready = pod('db-0', { owner: 'StatefulSet/db', labels: { app: 'db' }, ready: false });
    const met = budget('db', 'db', { allowed: 0, healthy: 2, desired: 2 });
    expect(
      drainPreflight({ node: 'worker-0', pods: [unready], budgets: [met], nodes }).pods[0]?.outcome,
    ).toBe('evicted');
    // Not met, and the policy does not let unhealthy pods go: still blocked.
    const unmet = budget('db', 'db', { allowed: 0, healthy: 0, desired: 1 });
    expect(
      drainPreflight({ node: 'worker-0', pods: [unready], budgets: [unmet], nodes }).pods[0]
        ?.outcome,
    ).toBe('blocked');
    const always = budget('db', 'db', { allowed: 0, healthy: 0, desired: 1 }, 'AlwaysAllow');
    expect(
      drainPreflight({ node: 'worker-0', pods: [unready], budgets: [always], nodes }).pods[0]
        ?.outcome,
    ).toBe('evicted');
    // A pending or finished pod is not protected.
    for (const phase of ['Pending', 'Succeeded', 'Failed'])
      expect(
        drainPreflight({
          node: 'worker-0',
          pods: [pod('db-0', { owner: 'StatefulSet/db', labels: { app: 'db' }, phase })],
          budgets: [zero],
          nodes,
        }).pods[0]?.outcome,
        phase,
      ).toBe('evicted');
  });

  it('two budgets over one pod block it; a budget in another namespace or without a selector covers nothing', () => {
    const a = budget('a', 'web', { allowed: 5, healthy: 5, desired: 0 });
    const b = budget('b', 'web', { allowed: 5, healthy: 5, desired: 0 });
    const web = pod('web-1', { owner: 'ReplicaSet/web', labels: { app: 'web' } });
    const r = drainPreflight({ node: 'worker-0', pods: [web], budgets: [a, b], nodes });
    expect(r.pods[0]).toMatchObject({
      outcome: 'blocked',
      blockedBy: 'PodDisruptionBudget apps/a',
    });
    expect(r.pods[0]?.why[0]).toContain('more than one');
    const foreign = { ...budget('c', 'web', { allowed: 0, healthy: 1, desired: 1 }) };
    foreign.metadata = { name: 'c', namespace: 'other' };
    const noSelector = budget('d', 'web', { allowed: 0, healthy: 1, desired: 1 });
    delete noSelector.spec!.selector;
    expect(
      drainPreflight({ node: 'worker-0', pods: [web], budgets: [foreign, noSelector], nodes })
        .pods[0]?.outcome,
    ).toBe('evicted');
  });

  it('says what an eviction loses or leaves waiting: emptyDir data, no node to go to, more pods than the budget lets go', () => {
    const tainted = [
      node('worker-0'),
      node('worker-1', { taint: 'dedicated' }),
      node('worker-2', { cordoned: true }),
    ];
    const r = drainPreflight({
      node: 'worker-0',
      pods: [
        pod('cache-0', { owner: 'StatefulSet/cache', emptyDir: true }),
        pod('pinned', {
          owner: 'ReplicaSet/pinned',
          nodeSelector: { 'kubernetes.io/hostname': 'worker-0' },
        }),
        pod('tolerant', {
          owner: 'ReplicaSet/t',
          tolerations: [{ key: 'dedicated', operator: 'Exists' }],
        }),
        pod('web-1', { owner: 'ReplicaSet/web', labels: { app: 'web' } }),
        pod('web-2', { owner: 'ReplicaSet/web', labels: { app: 'web' } }),
      ],
      budgets: [budget('web', 'web', { allowed: 1, healthy: 3, desired: 2 })],
      nodes: tainted,
    });
    const why = new Map(r.pods.map((p) => [p.pod, p.why]));
    expect(why.get('apps/cache-0')).toEqual([
      'its emptyDir data is deleted (scratch)',
      'no other node fits it (node selector, taints): its replacement stays Pending',
    ]);
    expect(why.get('apps/pinned')).toEqual([
      'no other node fits it (node selector, taints): its replacement stays Pending',
    ]);
    expect(why.get('apps/tolerant')).toEqual([]);
    expect(why.get('apps/web-1')).toEqual([
      'no other node fits it (node selector, taints): its replacement stays Pending',
      'PodDisruptionBudget apps/web allows 1 disruption(s) and 2 of its pods are here: the rest wait for replacements to be Ready',
    ]);
  });

  it('a node with no pods drains nothing', () => {
    expect(drainPreflight({ node: 'worker-9', pods: [pod('a')], budgets: [], nodes })).toEqual({
      pods: [],
      counts: { stays: 0, blocked: 0, deleted: 0, evicted: 0 },
    });
  });
});

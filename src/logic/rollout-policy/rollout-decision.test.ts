import type { PrometheusAnswer } from './gates/prometheus-gate.js';
import { describe, expect, it } from 'vitest';
import type { Node } from '../../api/core/v1/node.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutAnnotation } from '../../api/machineconfiguration/v1/rollout-policy.js';
import { parseRolloutPolicy, type ParsedRolloutPolicy } from './parse-rollout-policy.js';
import {
  decideRollout,
  GateRecheckMs,
  HoldReason,
  type RolloutObservations,
} from './rollout-decision.js';

const A = 'machineconfiguration.openshift.io/';
const Now = Date.parse('2026-12-02T05:00:00Z');

function policy(p: unknown): ParsedRolloutPolicy {
  const r = parseRolloutPolicy(JSON.stringify(p));
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function pool(annotations: Record<string, string> = {}): MachineConfigPool {
  return {
    metadata: { name: 'worker', annotations },
    spec: { configuration: { name: 'rendered-b' } },
  };
}

function node(
  name: string,
  config: { current: string; desired: string },
  extra: { labels?: Record<string, string>; conditions?: { type: string; status: string }[] } = {},
): Node {
  return {
    metadata: {
      name,
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: extra.labels ?? {},
      annotations: {
        [`${A}currentConfig`]: config.current,
        [`${A}desiredConfig`]: config.desired,
        [`${A}state`]: 'Done',
      },
    },
    status: {
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
        ...(extra.conditions ?? []),
      ],
    },
  };
}

const old = { current: 'rendered-a', desired: 'rendered-a' };
const updated = { current: 'rendered-b', desired: 'rendered-b' };

/** Observations; `prometheus` and `podsNotReady` are the answers of those two gates' probes. */
function obs({
  prometheus,
  podsNotReady,
  ...o
}: Partial<RolloutObservations> & {
  prometheus?: PrometheusAnswer;
  podsNotReady?: ReadonlyMap<string, readonly string[]>;
} = {}): RolloutObservations {
  return {
    now: Now,
    doneSince: new Map(),
    answers: {
      ...(prometheus === undefined ? {} : { prometheus }),
      ...(podsNotReady === undefined ? {} : { podSelector: podsNotReady }),
    },
    stop: undefined,
    ...o,
  };
}

describe('rollout decision', () => {
  it('holds outside the windows and names the next opening', () => {
    const d = decideRollout(
      policy({ windows: [{ start: '06:00', duration: '1h' }] }),
      pool(),
      [node('w1', old)],
      obs(),
    );
    expect(d).toEqual({
      hold: true,
      reason: HoldReason.outsideWindow,
      message:
        'No node update starts outside a maintenance window; the next maintenance window opens at 2026-12-02T06:00:00Z',
      failing: false,
      recheckAfterMs: 3_600_000,
    });
  });

  it('lets nodes move inside a window, until it closes', () => {
    const d = decideRollout(
      policy({ windows: [{ start: '04:30', duration: '1h' }] }),
      pool(),
      [node('w1', old)],
      obs(),
    );
    expect(d).toMatchObject({
      hold: false,
      limit: Number.POSITIVE_INFINITY,
      message: 'maintenance window open until 2026-12-02T05:30:00Z',
      recheckAfterMs: 1_800_000,
    });
  });

  it('holds while an updated node soaks, then lets the next start', () => {
    const p = policy({ gates: { soak: '60s' } });
    const nodes = [node('w1', updated), node('w2', old)];
    const soaking = decideRollout(
      p,
      pool(),
      nodes,
      obs({ doneSince: new Map([['w1', Now - 20_000]]) }),
    );
    expect(soaking).toMatchObject({
      hold: true,
      reason: HoldReason.soaking,
      message: 'Waiting for w1 to soak until 2026-12-02T05:00:40Z',
      failing: false,
      recheckAfterMs: 40_000,
    });
    const soaked = decideRollout(
      p,
      pool(),
      nodes,
      obs({ doneSince: new Map([['w1', Now - 60_000]]) }),
    );
    expect(soaked.hold).toBe(false);
  });

  it('asks a gate query again within the soak, where a finding is a revert', () => {
    const d = decideRollout(
      policy({
        gates: { soak: '60s', prometheus: { url: 'http://127.0.0.1:1', query: 'ALERTS' } },
      }),
      pool(),
      [node('w1', updated), node('w2', old)],
      obs({ doneSince: new Map([['w1', Now - 20_000]]), prometheus: { ok: true, series: [] } }),
    );
    expect(d).toMatchObject({
      hold: true,
      reason: HoldReason.soaking,
      recheckAfterMs: GateRecheckMs,
    });
  });

  it('the soak restarts when the node turned Ready after it was Done', () => {
    const n = node('w1', updated);
    const ready = n.status?.conditions?.[0];
    if (ready !== undefined) ready.lastTransitionTime = '2026-12-02T04:59:50Z';
    const d = decideRollout(
      policy({ gates: { soak: '60s' } }),
      pool(),
      [n, node('w2', old)],
      obs({ doneSince: new Map([['w1', Now - 600_000]]) }),
    );
    expect(d).toMatchObject({ hold: true, reason: HoldReason.soaking, recheckAfterMs: 50_000 });
  });

  it('holds with the series while the query returns any, and when it cannot be asked', () => {
    const p = policy({ gates: { prometheus: { url: 'http://127.0.0.1:1', query: 'ALERTS' } } });
    const firing = decideRollout(
      p,
      pool(),
      [node('w1', old)],
      obs({
        prometheus: { ok: true, series: ['ALERTS{alertname="KubeNodeNotReady"}'] },
      }),
    );
    expect(firing).toMatchObject({
      hold: true,
      reason: HoldReason.gateFailed,
      failing: true,
      message: 'Health gate query returned 1 series: ALERTS{alertname="KubeNodeNotReady"}',
    });
    const down = decideRollout(
      p,
      pool(),
      [node('w1', old)],
      obs({
        prometheus: { ok: false, error: 'connect ECONNREFUSED' },
      }),
    );
    expect(down).toMatchObject({ hold: true, reason: HoldReason.gateFailed, failing: true });
    const quiet = decideRollout(
      p,
      pool(),
      [node('w1', old)],
      obs({ prometheus: { ok: true, series: [] } }),
    );
    expect(quiet.hold).toBe(false);
  });

  it('a node condition or pods failing after the soak stop the rollout with the reason', () => {
    const p = policy({
      gates: {
        soak: '10s',
        nodeCondition: { type: 'example.com/Healthy', status: 'True' },
        podSelector: { matchLabels: { app: 'web' } },
      },
    });
    const nodes = [
      node('w1', updated, { conditions: [{ type: 'example.com/Healthy', status: 'False' }] }),
      node('w2', old),
    ];
    const d = decideRollout(
      p,
      pool(),
      nodes,
      obs({
        doneSince: new Map([['w1', Now - 30_000]]),
        podsNotReady: new Map([['w1', ['default/web-1']]]),
      }),
    );
    expect(d).toMatchObject({
      hold: true,
      reason: HoldReason.gateFailed,
      failing: true,
      message:
        'Health gate failed: node w1 condition example.com/Healthy is False, expected True; pods not ready on w1: default/web-1',
    });
    // Within the soak the same checks are a wait, not a failure.
    const early = decideRollout(
      p,
      pool(),
      nodes,
      obs({ doneSince: new Map([['w1', Now - 5_000]]) }),
    );
    expect(early).toMatchObject({ hold: true, reason: HoldReason.soaking, failing: false });
  });

  it('a canary of one: one node may start, then the pool waits for resume of this target', () => {
    const p = policy({ canary: { count: 1 } });
    const first = decideRollout(p, pool(), [node('w1', old), node('w2', old)], obs());
    expect(first).toMatchObject({ hold: false, limit: 1 });
    // While the canary updates the rest wait too, and the message does not say it is on the target.
    const moving = [node('w1', { current: 'rendered-a', desired: 'rendered-b' }), node('w2', old)];
    expect(decideRollout(p, pool(), moving, obs())).toMatchObject({
      hold: true,
      reason: HoldReason.canary,
      message:
        'Canary of 1 node(s) is updating to rendered-b; the rest wait for it, then for `mco rollout resume mcp/worker`',
    });
    const nodes = [node('w1', updated), node('w2', old)];
    expect(decideRollout(p, pool(), nodes, obs())).toMatchObject({
      hold: true,
      reason: HoldReason.canary,
      message:
        'Canary of 1 node(s) is on rendered-b; the rest wait for `mco rollout resume mcp/worker`',
    });
    // A resume for an earlier target does not release this one.
    expect(
      decideRollout(p, pool({ [RolloutAnnotation.resume]: 'rendered-a' }), nodes, obs()).hold,
    ).toBe(true);
    expect(
      decideRollout(p, pool({ [RolloutAnnotation.resume]: 'rendered-b' }), nodes, obs()),
    ).toMatchObject({ hold: false, limit: Number.POSITIVE_INFINITY });
  });

  it('slow start: one node, then one more at once for each node done, halved per failing node', () => {
    const p = policy({ batches: 'slowStart' });
    const moving = { current: 'rendered-a', desired: 'rendered-b' };
    const failing = (name: string): Node => {
      const n = node(name, moving);
      n.metadata.annotations = { ...n.metadata.annotations, [`${A}state`]: 'Degraded' };
      return n;
    };
    const olds = (k: number) => Array.from({ length: k }, (_, i) => node(`o${String(i)}`, old));
    const limit = (nodes: Node[]) => {
      const d = decideRollout(p, pool(), nodes, obs());
      return d.hold ? undefined : { limit: d.limit, message: d.message };
    };
    expect(limit(olds(8))).toEqual({
      limit: 1,
      message:
        'the rollout policy lets nodes update; slow start: 1 at once (0 done, 0 failing, 0 updating)',
    });
    expect(limit([node('u1', moving), ...olds(7)])?.limit).toBe(0);
    expect(limit([node('d1', updated), ...olds(7)])?.limit).toBe(2);
    expect(limit([node('d1', updated), node('u1', moving), ...olds(6)])?.limit).toBe(1);
    const three = [node('d1', updated), node('d2', updated), node('d3', updated)];
    expect(limit([...three, ...olds(5)])?.limit).toBe(4);
    // A failing node halves the batch (4 → 2), and counts as neither done nor updating.
    expect(limit([...three, failing('f1'), ...olds(4)])).toEqual({
      limit: 2,
      message:
        'the rollout policy lets nodes update; slow start: 2 at once (3 done, 1 failing, 0 updating)',
    });
    expect(limit([failing('f1'), failing('f2'), ...olds(6)])?.limit).toBe(1);
    // Without batches, no bound beyond maxUnavailable.
    expect(decideRollout(policy({}), pool(), olds(3), obs())).toMatchObject({
      hold: false,
      limit: Number.POSITIVE_INFINITY,
    });
    expect(parseRolloutPolicy('{"batches":"fast"}').ok).toBe(false);
  });

  it('a canary auto-resumes once healthy for its time', () => {
    const p = policy({ canary: { count: 1, autoResumeAfter: '30s' } });
    const nodes = [node('w1', updated), node('w2', old)];
    expect(
      decideRollout(p, pool(), nodes, obs({ doneSince: new Map([['w1', Now - 10_000]]) })),
    ).toMatchObject({ hold: true, reason: HoldReason.canary, recheckAfterMs: 20_000 });
    expect(
      decideRollout(p, pool(), nodes, obs({ doneSince: new Map([['w1', Now - 30_000]]) })).hold,
    ).toBe(false);
  });

  it('a labelled canary: only its nodes start, in the priority order, then the pool waits', () => {
    const p = policy({
      canary: { selector: { matchLabels: { canary: 'true' } } },
      order: { priorityLabel: 'example.com/order' },
    });
    const nodes = [
      node('w1', old, { labels: { 'example.com/order': '2' } }),
      node('w2', old, { labels: { canary: 'true', 'example.com/order': '5' } }),
      node('w3', old, { labels: { canary: 'true', 'example.com/order': '1' } }),
      node('w4', old, { labels: { 'example.com/order': 'junk' } }),
    ];
    const d = decideRollout(p, pool(), nodes, obs());
    if (d.hold) throw new Error('held');
    expect(d.arrange(nodes).map((n) => n.metadata.name)).toEqual(['w3', 'w2']);
    const released = decideRollout(
      p,
      pool({ [RolloutAnnotation.resume]: 'rendered-b' }),
      nodes,
      obs(),
    );
    if (released.hold) throw new Error('held');
    expect(released.arrange(nodes).map((n) => n.metadata.name)).toEqual(['w3', 'w1', 'w2', 'w4']);
  });
});

describe('rollout policy parsing', () => {
  it.each([
    ['not JSON', '{', /^not JSON/],
    ['an unknown field', '{"windws":[]}', /^\/: Unexpected property|windws|Unexpected/],
    ['a bad start', '{"windows":[{"start":"25:00","duration":"1h"}]}', /^\/windows\/0\/start/],
    ['a bad duration', '{"gates":{"soak":"forever"}}', /^\/gates\/soak/],
    [
      'a zone that does not exist',
      '{"windows":[{"start":"01:00","duration":"1h","timeZone":"No/Where"}]}',
      /unknown time zone/,
    ],
    [
      'both canary forms',
      '{"canary":{"count":1,"selector":{}}}',
      /exactly one of count and selector/,
    ],
    ['a zero canary', '{"canary":{"count":0}}', /^\/canary\/count/],
    [
      'a file URL',
      '{"gates":{"prometheus":{"url":"file:///etc/passwd","query":"up"}}}',
      /^\/gates\/prometheus\/url/,
    ],
    [
      'a bad selector operator',
      '{"gates":{"podSelector":{"matchExpressions":[{"key":"a","operator":"Near"}]}}}',
      /podSelector/,
    ],
    [
      'a huge policy',
      JSON.stringify({ order: { priorityLabel: 'x'.repeat(40_000) } }),
      /at most 32768/,
    ],
    ['an array', '[]', /^\/: /],
  ])('refuses %s', (_what, text, error) => {
    const r = parseRolloutPolicy(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(error);
  });
});

describe('automatic revert and stop', () => {
  const previousPool = (): MachineConfigPool => ({
    ...pool(),
    status: { configuration: { name: 'rendered-a' } },
  });

  it('a node failing its own check within the soak goes back to the previous config', () => {
    const p = policy({
      autoRevert: true,
      gates: { soak: '60s', nodeCondition: { type: 'example.com/Healthy', status: 'True' } },
    });
    const nodes = [
      node('w1', updated, { conditions: [{ type: 'example.com/Healthy', status: 'False' }] }),
      node('w2', old),
    ];
    const d = decideRollout(
      p,
      previousPool(),
      nodes,
      obs({ doneSince: new Map([['w1', Now - 5_000]]) }),
    );
    expect(d).toMatchObject({
      hold: true,
      reason: HoldReason.reverted,
      failing: true,
      revert: { nodes: ['w1'], to: 'rendered-a' },
      message:
        'w1 failed the health gate within the soak (node w1 condition example.com/Healthy is False, expected True): back to rendered-a, and the rollout of rendered-b stops',
    });
    // Past its soak the same failure holds the rollout but sends nothing back.
    const late = decideRollout(
      p,
      previousPool(),
      nodes,
      obs({ doneSince: new Map([['w1', Now - 120_000]]) }),
    );
    expect(late).toMatchObject({ hold: true, reason: HoldReason.gateFailed });
    expect('revert' in late).toBe(false);
  });

  it('a firing query during a soak reverts the soaking node; pods alone are a wait', () => {
    const p = policy({
      autoRevert: true,
      gates: { soak: '60s', prometheus: { url: 'http://127.0.0.1:1', query: 'ALERTS' } },
    });
    const nodes = [node('w1', updated), node('w2', old)];
    const firing = decideRollout(
      p,
      previousPool(),
      nodes,
      obs({
        doneSince: new Map([['w1', Now - 5_000]]),
        prometheus: { ok: true, series: ['ALERTS{}'] },
        podsNotReady: new Map([['w1', ['default/web-1']]]),
      }),
    );
    expect(firing).toMatchObject({ reason: HoldReason.reverted, revert: { nodes: ['w1'] } });
    const podsOnly = decideRollout(
      p,
      previousPool(),
      nodes,
      obs({
        doneSince: new Map([['w1', Now - 5_000]]),
        prometheus: { ok: true, series: [] },
        podsNotReady: new Map([['w1', ['default/web-1']]]),
      }),
    );
    expect(podsOnly).toMatchObject({ reason: HoldReason.soaking });
  });

  it('a stopped rollout holds until resumed; a new target ends the stop', () => {
    const stop = { target: 'rendered-b', node: 'w1', revertTo: 'rendered-a', reason: 'w1 failed' };
    const p = policy({ autoRevert: true });
    expect(decideRollout(p, previousPool(), [node('w1', old)], obs({ stop }))).toMatchObject({
      hold: true,
      reason: HoldReason.stopped,
      message:
        'The rollout of rendered-b is stopped: w1 failed; `mco rollout resume mcp/worker` goes on with it',
    });
    expect(
      decideRollout(
        p,
        previousPool(),
        [node('w1', old)],
        obs({ stop: { ...stop, target: 'rendered-0' } }),
      ).hold,
    ).toBe(false);
  });
});

describe('an approval hold', () => {
  const need = 'rendered-b waits for an approval: …';
  it('holds every start, before windows and canaries, and lifts when the need is gone', () => {
    const p = policy({ approval: { rebootsAbove: 0 }, canary: { count: 1 } });
    const nodes = [node('w1', old), node('w2', old)];
    expect(decideRollout(p, pool(), nodes, obs({ approval: need }))).toEqual({
      hold: true,
      reason: HoldReason.approval,
      message: need,
      failing: false,
      recheckAfterMs: undefined,
    });
    expect(decideRollout(p, pool(), nodes, obs())).toMatchObject({ hold: false, limit: 1 });
  });
  it('a stop still comes first, and nothing left to start is no hold', () => {
    const p = policy({ approval: { rebootsAbove: 0 } });
    const stop = { target: 'rendered-b', node: 'w1', revertTo: 'rendered-a', reason: 'x' };
    expect(
      decideRollout(p, pool(), [node('w1', old)], obs({ approval: need, stop })),
    ).toMatchObject({ hold: true, reason: HoldReason.stopped });
    expect(decideRollout(p, pool(), [node('w1', updated)], obs({ approval: need }))).toMatchObject({
      hold: false,
      limit: 0,
    });
  });
});

describe('a pool with nothing left to start', () => {
  it('reports no hold, whatever its gates and windows say', () => {
    const p = policy({
      windows: [{ start: '06:00', duration: '1h' }],
      gates: { soak: '60s', prometheus: { url: 'http://127.0.0.1:1', query: 'ALERTS' } },
    });
    expect(
      decideRollout(
        p,
        pool(),
        [node('w1', updated)],
        obs({ prometheus: { ok: true, series: ['x'] } }),
      ),
    ).toMatchObject({ hold: false, limit: 0, message: 'every node is on rendered-b' });
  });
});

import { describe, expect, it } from 'vitest';
import type { Node } from '../../../api/core/v1/node.js';
import type { MachineConfigPool } from '../../../api/machineconfiguration/v1/machine-config-pool.js';
import { parseRolloutPolicy } from '../parse-rollout-policy.js';
import { decideRollout, HoldReason, type RolloutObservations } from '../rollout-decision.js';
import { GateKinds } from './gate-kinds.js';
import { httpProbeGate } from './http-probe-gate.js';
import { judgePool } from './judge-gates.js';

const A = 'machineconfiguration.openshift.io/';
const Now = Date.parse('2026-06-01T12:00:00Z');
const Url = 'http://127.0.0.1:8080/healthz';

function node(name: string, config: string): Node {
  return {
    metadata: {
      name,
      creationTimestamp: '2026-01-01T00:00:00Z',
      annotations: {
        [`${A}currentConfig`]: config,
        [`${A}desiredConfig`]: config,
        [`${A}state`]: 'Done',
      },
    },
    status: {
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    },
  };
}

const pool: MachineConfigPool = {
  metadata: { name: 'worker' },
  spec: { configuration: { name: 'rendered-b' } },
  status: { configuration: { name: 'rendered-a' } },
};

function policy(json: unknown) {
  const parsed = parseRolloutPolicy(JSON.stringify(json));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

function obs(status: number | string, doneSinceMs = Now - 600_000): RolloutObservations {
  return {
    now: Now,
    doneSince: new Map([['w1', doneSinceMs]]),
    answers: {
      httpProbe: typeof status === 'number' ? { ok: true, status } : { ok: false, error: status },
    },
    stop: undefined,
  };
}

const nodes = [node('w1', 'rendered-b'), node('w2', 'rendered-a')];

describe('the httpProbe gate', () => {
  it('is a pool gate in the table that counts for a revert', () => {
    expect(GateKinds.httpProbe).toBe(httpProbeGate);
    expect(httpProbeGate.scope).toBe('pool');
    expect(httpProbeGate.countsForRevert).toBe(true);
    expect(httpProbeGate.describe({ url: Url })).toBe(`${Url} answers 2xx`);
  });

  it('passes on every 2xx and fails on anything else, naming the URL and the status', () => {
    for (const status of [200, 204, 299])
      expect(httpProbeGate.judge({ url: Url }, { ok: true, status })).toEqual([]);
    expect(httpProbeGate.judge({ url: Url }, { ok: true, status: 503 })).toEqual([
      `Health gate ${Url} answered HTTP 503, not 2xx`,
    ]);
    expect(httpProbeGate.judge({ url: Url }, { ok: true, status: 302 })).toEqual([
      `Health gate ${Url} answered HTTP 302, not 2xx`,
    ]);
    expect(httpProbeGate.judge({ url: Url }, { ok: false, error: 'connect ECONNREFUSED' })).toEqual(
      [`Health gate ${Url} did not answer: connect ECONNREFUSED`],
    );
  });

  it('the policy takes it under gates; a URL that is not http(s) or a stray key is refused', () => {
    expect(policy({ gates: { httpProbe: { url: Url } } }).source.gates?.httpProbe).toEqual({
      url: Url,
    });
    const bad = (json: unknown) => parseRolloutPolicy(JSON.stringify(json));
    expect(bad({ gates: { httpProbe: { url: 'file:///etc/passwd' } } })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^\/gates\/httpProbe\/url/) as unknown,
    });
    expect(bad({ gates: { httpProbe: { url: Url, method: 'POST' } } })).toMatchObject({
      ok: false,
    });
    expect(bad({ gates: { httpProbe: {} } })).toMatchObject({ ok: false });
  });

  it('holds the next node while it fails and lets it start once it answers 2xx', () => {
    const p = policy({ gates: { httpProbe: { url: Url } } });
    expect(decideRollout(p, pool, nodes, obs(503))).toEqual({
      hold: true,
      reason: HoldReason.gateFailed,
      message: `Health gate ${Url} answered HTTP 503, not 2xx`,
      failing: true,
      recheckAfterMs: 2000,
    });
    expect(decideRollout(p, pool, nodes, obs('timed out'))).toMatchObject({
      hold: true,
      reason: HoldReason.gateFailed,
      message: `Health gate ${Url} did not answer: timed out`,
    });
    expect(decideRollout(p, pool, nodes, obs(200))).toMatchObject({ hold: false });
  });

  it('within the soak with autoRevert, a failure sends the soaking node back; asked again while it soaks', () => {
    const p = policy({ gates: { soak: '10m', httpProbe: { url: Url } }, autoRevert: true });
    expect(decideRollout(p, pool, nodes, obs(500, Now - 60_000))).toMatchObject({
      hold: true,
      reason: HoldReason.reverted,
      revert: { nodes: ['w1'], to: 'rendered-a' },
      message: expect.stringContaining(`Health gate ${Url} answered HTTP 500, not 2xx`) as unknown,
    });
    expect(decideRollout(p, pool, nodes, obs(200, Now - 60_000))).toMatchObject({
      hold: true,
      reason: HoldReason.soaking,
      recheckAfterMs: 2000,
    });
  });

  it('is judged only when asked: no answer, no verdict', () => {
    expect(judgePool({ httpProbe: { url: Url } }, {})).toEqual({
      failures: [],
      revertable: false,
      asked: false,
    });
  });
});

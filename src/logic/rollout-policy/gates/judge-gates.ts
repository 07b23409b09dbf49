/**
 * The verdicts of a policy's health gates on what the probes answered: per updated node (its
 * Ready condition, always, then every node gate) and once for the pool. A verdict says whether
 * a failure counts for a revert, so the decision has no gate-specific branch.
 */
import type { Node } from '../../../api/core/v1/node.js';
import { isNodeReady } from '../../rollout/node-state.js';
import type { AnyGateKind } from './gate-kind.js';
import { configuredGates, GateKinds, type GateAnswers, type HealthGates } from './gate-kinds.js';

interface GateVerdict {
  /** Checks that do not hold now, in table order. */
  readonly failures: readonly string[];
  /** One of them counts for a revert within the soak. */
  readonly revertable: boolean;
}

export interface NodeVerdict extends GateVerdict {
  readonly node: string;
}

export interface PoolVerdict extends GateVerdict {
  /** A pool gate was asked this pass, so it is worth asking again while nodes soak. */
  readonly asked: boolean;
}

/** The answer recorded for `gate` (a map by node for node gates), if it was asked. */
function answerOf(answers: GateAnswers, gate: string): unknown {
  return (answers as Readonly<Record<string, unknown>>)[gate];
}

export function judgeNode(
  gates: HealthGates | undefined,
  node: Node,
  answers: GateAnswers,
): NodeVerdict {
  const name = node.metadata.name ?? '';
  // Not Ready is the node's own failure, whatever the policy's gates.
  const failures: string[] = isNodeReady(node) ? [] : [`node ${name} is not Ready`];
  let revertable = failures.length > 0;
  for (const { name: gate, config } of configuredGates(gates)) {
    const kind: AnyGateKind = GateKinds[gate];
    if (kind.scope !== 'node') continue;
    const byNode = answerOf(answers, gate) as ReadonlyMap<string, unknown> | undefined;
    const found = kind.judge(config, node, byNode?.get(name));
    failures.push(...found);
    revertable ||= found.length > 0 && kind.countsForRevert;
  }
  return { node: name, failures, revertable };
}

export function judgePool(gates: HealthGates | undefined, answers: GateAnswers): PoolVerdict {
  const failures: string[] = [];
  let revertable = false;
  let asked = false;
  for (const { name: gate, config } of configuredGates(gates)) {
    const kind: AnyGateKind = GateKinds[gate];
    const answer = answerOf(answers, gate);
    if (kind.scope !== 'pool' || answer === undefined) continue;
    asked = true;
    const found = kind.judge(config, answer);
    failures.push(...found);
    revertable ||= found.length > 0 && kind.countsForRevert;
  }
  return { failures, revertable, asked };
}

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

/**
 * Folds the verdicts of the configured gates of one scope; `judge` gives a gate's failures, or
 * undefined when it was not asked this pass.
 */
function fold(
  gates: HealthGates | undefined,
  scope: AnyGateKind['scope'],
  judge: (kind: AnyGateKind, gate: string, config: unknown) => readonly string[] | undefined,
): PoolVerdict {
  const failures: string[] = [];
  let revertable = false;
  let asked = false;
  for (const { name, config } of configuredGates(gates)) {
    const kind: AnyGateKind = GateKinds[name];
    if (kind.scope !== scope) continue;
    const found = judge(kind, name, config);
    if (found === undefined) continue;
    asked = true;
    failures.push(...found);
    revertable ||= found.length > 0 && kind.countsForRevert;
  }
  return { failures, revertable, asked };
}

export function judgeNode(
  gates: HealthGates | undefined,
  node: Node,
  answers: GateAnswers,
): NodeVerdict {
  const name = node.metadata.name ?? '';
  const { failures, revertable } = fold(gates, 'node', (kind, gate, config) => {
    const byNode = answerOf(answers, gate) as ReadonlyMap<string, unknown> | undefined;
    return kind.scope === 'node' ? kind.judge(config, node, byNode?.get(name)) : undefined;
  });
  // Not Ready is the node's own failure, whatever the policy's gates, and listed first.
  if (isNodeReady(node)) return { node: name, failures, revertable };
  return { node: name, failures: [`node ${name} is not Ready`, ...failures], revertable: true };
}

export function judgePool(gates: HealthGates | undefined, answers: GateAnswers): PoolVerdict {
  return fold(gates, 'pool', (kind, gate, config) => {
    const answer = answerOf(answers, gate);
    return kind.scope === 'pool' && answer !== undefined ? kind.judge(config, answer) : undefined;
  });
}

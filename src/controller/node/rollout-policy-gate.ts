/**
 * The node controller's side of a pool's rollout policy (docs/rollouts.md): reads the policy
 * annotation, remembers when each node was first seen Done on the target (the soak clock), asks
 * the probes, and hands the pure decision back with the pool condition and the event it calls for.
 * A pool without the annotation never reaches this: upstream's path runs untouched.
 *
 * The soak clock lives in memory: a controller that restarts (or a new leader) starts the soak of
 * nodes already updated again, which only ever waits longer, never less.
 */
import type { Node } from '../../api/core/v1/node.js';
import { EventType } from '../../api/core/v1/event.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutAnnotation,
  RolloutHeldCondition,
  type RolloutStop,
} from '../../api/machineconfiguration/v1/rollout-policy.js';
import type { McoCondition } from '../../api/meta/v1/condition.js';
import { Resources } from '../../api/resource-refs.js';
import { setMcoCondition } from '../../api/meta/v1/condition-list.js';
import { isNodeDone } from '../../logic/rollout/node-state.js';
import { parseRolloutPolicy } from '../../logic/rollout-policy/parse-rollout-policy.js';
import { readRolloutStop } from '../../logic/rollout-policy/rollout-stop.js';
import {
  decideRollout,
  HoldReason,
  type RevertOrder,
  type RolloutDecision,
} from '../../logic/rollout-policy/rollout-decision.js';
import { setDesiredConfig } from './node-patches.js';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import type { EventRecorder } from '../../runtime/event-recorder.js';
import { ApprovalPreview } from './approval-preview.js';
import { askGates } from './rollout-probes.js';

const RolloutEventReason = {
  [HoldReason.outsideWindow]: 'RolloutWaitingForWindow',
  [HoldReason.soaking]: 'RolloutSoaking',
  [HoldReason.gateFailed]: 'RolloutHealthGateFailed',
  [HoldReason.canary]: 'RolloutCanaryWaiting',
  [HoldReason.invalidPolicy]: 'InvalidRolloutPolicy',
  [HoldReason.reverted]: 'RolloutReverted',
  [HoldReason.stopped]: 'RolloutStopped',
  [HoldReason.approval]: 'RolloutAwaitingApproval',
} as const;

export function hasRolloutPolicy(pool: MachineConfigPool): boolean {
  return pool.metadata.annotations?.[RolloutAnnotation.policy] !== undefined;
}

/** The RolloutHeld condition for a decision (False while the policy lets nodes move). */
export function rolloutCondition(
  conditions: readonly McoCondition[],
  decision: RolloutDecision,
  now: string,
): McoCondition[] {
  return decision.hold
    ? setMcoCondition(
        conditions,
        {
          type: RolloutHeldCondition,
          status: 'True',
          reason: decision.reason,
          message: decision.message,
        },
        now,
      )
    : setMcoCondition(
        conditions,
        { type: RolloutHeldCondition, status: 'False', reason: '', message: decision.message },
        now,
      );
}

export class RolloutPolicyGate {
  readonly #client: ResourceClient;
  readonly #events: EventRecorder;
  /** `node\0target` → when first seen Done there. */
  readonly #doneSince = new Map<string, number>();
  /** The hold last announced per pool, so each is one event. */
  readonly #announced = new Map<string, string>();
  readonly #approval: ApprovalPreview;

  constructor(client: ResourceClient, events: EventRecorder) {
    this.#client = client;
    this.#events = events;
    this.#approval = new ApprovalPreview(client);
  }

  /** The policy's decision for this pass; undefined for a pool without a policy. */
  async decide(
    pool: MachineConfigPool,
    nodes: readonly Node[],
    now: number,
    signal: AbortSignal,
  ): Promise<RolloutDecision | undefined> {
    const text = pool.metadata.annotations?.[RolloutAnnotation.policy];
    if (text === undefined) return undefined;
    const target = pool.spec.configuration?.name ?? '';
    const doneSince = this.#soakClock(nodes, target, now);
    const parsed = parseRolloutPolicy(text);
    let decision: RolloutDecision;
    if (!parsed.ok) {
      decision = {
        hold: true,
        reason: HoldReason.invalidPolicy,
        message: `No node update starts: annotation ${RolloutAnnotation.policy}: ${parsed.error}`,
        failing: true,
        recheckAfterMs: undefined,
      };
    } else {
      const policy = parsed.value;
      const pending = nodes.some(
        (n) => n.metadata.annotations?.[Annotation.desiredConfig] !== target,
      );
      const onTarget = nodes
        .filter(
          (n) => isNodeDone(n) && n.metadata.annotations?.[Annotation.desiredConfig] === target,
        )
        .map((n) => n.metadata.name ?? '');
      decision = decideRollout(policy, pool, nodes, {
        now,
        doneSince,
        // Asked only while something is left to roll out: a finished rollout has no next node.
        answers: pending
          ? await askGates(policy.source.gates, onTarget, { client: this.#client, signal })
          : {},
        stop: readRolloutStop(pool),
        approval: await this.#approval.need({
          policy: policy.source,
          pool,
          nodes,
          target,
          signal,
        }),
      });
    }
    if (decision.hold && decision.revert !== undefined)
      await this.#revert({ pool, nodes, order: decision.revert, reason: decision.message, signal });
    await this.#announce(pool, decision);
    return decision;
  }

  /**
   * Stops the rollout first (so no later pass retargets the nodes), then sends each node back to
   * the pool's previous config: the daemon applies it as any other update, and on OSTree the OS
   * part is the previous deployment, still on disk.
   */
  async #revert({
    pool,
    nodes,
    order,
    reason,
    signal,
  }: {
    readonly pool: MachineConfigPool;
    readonly nodes: readonly Node[];
    readonly order: RevertOrder;
    readonly reason: string;
    readonly signal: AbortSignal;
  }): Promise<void> {
    const stop: RolloutStop = {
      target: pool.spec.configuration?.name ?? '',
      node: order.nodes.join(','),
      revertTo: order.to,
      reason,
    };
    await this.#client.patch(
      Resources.machineConfigPool,
      pool.metadata.name ?? '',
      { metadata: { annotations: { [RolloutAnnotation.stopped]: JSON.stringify(stop) } } },
      'merge',
      { signal },
    );
    for (const name of order.nodes) {
      const node = nodes.find((n) => n.metadata.name === name);
      if (node !== undefined) await setDesiredConfig(this.#client, node, order.to, signal);
    }
  }

  #soakClock(nodes: readonly Node[], target: string, now: number): Map<string, number> {
    const out = new Map<string, number>();
    const seen = new Set<string>();
    for (const n of nodes) {
      const name = n.metadata.name ?? '';
      if (!isNodeDone(n) || n.metadata.annotations?.[Annotation.desiredConfig] !== target) continue;
      const key = `${name}\0${target}`;
      seen.add(key);
      const since = this.#doneSince.get(key) ?? now;
      this.#doneSince.set(key, since);
      out.set(name, since);
    }
    for (const n of nodes) {
      const prefix = `${n.metadata.name ?? ''}\0`;
      for (const key of this.#doneSince.keys())
        if (key.startsWith(prefix) && !seen.has(key)) this.#doneSince.delete(key);
    }
    return out;
  }

  async #announce(pool: MachineConfigPool, decision: RolloutDecision): Promise<void> {
    const name = pool.metadata.name ?? '';
    if (!decision.hold) {
      this.#announced.delete(name);
      return;
    }
    // A failure is announced again when what fails changes; a wait once per kind of wait.
    const key = decision.failing ? `${decision.reason}: ${decision.message}` : decision.reason;
    if (this.#announced.get(name) === key) return;
    this.#announced.set(name, key);
    await this.#events.event(
      Resources.machineConfigPool,
      pool,
      decision.failing ? EventType.Warning : EventType.Normal,
      RolloutEventReason[decision.reason],
      decision.message,
    );
  }
}

/**
 * The node controller's side of an approval hold (logic/rollout-policy/approval-need.ts): plans
 * each pending node's update from the config it runs now to the pool's target, with the knobs
 * `mco rollout preview` plans with (MachineConfiguration/cluster's spec merged with the cluster
 * defaults) and the node's pending forcefile, so the hold's preview is the preview's.
 *
 * Plans are kept per (from, to, forcefile, MachineConfiguration resourceVersion): rendered
 * configs are named by their content, so the same key is the same plan.
 */
import type { Node } from '../../api/core/v1/node.js';
import { Annotation } from '../../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import { RolloutAnnotation } from '../../api/machineconfiguration/v1/rollout-policy.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import {
  MachineConfigurationName,
  type MachineConfiguration,
} from '../../api/operator/v1/machine-configuration.js';
import { Resources } from '../../api/resource-refs.js';
import { errorText } from '../../lib/error-text.js';
import { forceFilePending } from '../../logic/nodeplan/forcefile.js';
import { explainUpdate, knobsFromMachineConfiguration } from '../../logic/nodeplan/plan-knobs.js';
import { approvalNeed, type PendingNodePlan } from '../../logic/rollout-policy/approval-need.js';
import type { RolloutPolicy } from '../../logic/rollout-policy/rollout-policy-schema.js';
import type { ResourceClient } from '../../ports/resource-client.js';

/** Plans kept at most; a pool's rollout needs one per distinct config its nodes run. */
const MaxPlans = 512;

export class ApprovalPreview {
  readonly #client: ResourceClient;
  readonly #plans = new Map<string, PendingNodePlan['plan']>();

  constructor(client: ResourceClient) {
    this.#client = client;
  }

  /** The hold's message while `target` needs an approval it has not had; else undefined. */
  async need(input: {
    readonly policy: RolloutPolicy;
    readonly pool: MachineConfigPool;
    readonly nodes: readonly Node[];
    readonly target: string;
    readonly signal: AbortSignal;
  }): Promise<string | undefined> {
    const { policy, pool, nodes, target, signal } = input;
    if (policy.approval === undefined) return undefined;
    if (pool.metadata.annotations?.[RolloutAnnotation.approved] === target) return undefined;
    const pending = nodes.filter(
      (n) => n.metadata.annotations?.[Annotation.desiredConfig] !== target,
    );
    if (pending.length === 0) return undefined;
    const settings = await this.#machineConfiguration(signal);
    const plans: PendingNodePlan[] = [];
    for (const n of pending) {
      const from = n.metadata.annotations?.[Annotation.currentConfig] ?? '';
      const forced = forceFilePending(n.metadata.annotations);
      plans.push({
        node: n.metadata.name ?? '',
        plan: await this.#plan({ from, to: target, forced, settings, signal }),
      });
    }
    return approvalNeed({
      approval: policy.approval,
      pool: pool.metadata.name ?? '',
      target,
      poolSize: nodes.length,
      pending: plans,
    });
  }

  async #plan(k: {
    readonly from: string;
    readonly to: string;
    readonly forced: boolean;
    readonly settings: MachineConfiguration | undefined;
    readonly signal: AbortSignal;
  }): Promise<PendingNodePlan['plan']> {
    const key = [k.from, k.to, String(k.forced), k.settings?.metadata.resourceVersion ?? ''].join(
      '\0',
    );
    const kept = this.#plans.get(key);
    if (kept !== undefined) return kept;
    let plan: PendingNodePlan['plan'];
    try {
      const [from, to] = await Promise.all([
        this.#client.get<MachineConfig>(Resources.machineConfig, k.from, undefined, k.signal),
        this.#client.get<MachineConfig>(Resources.machineConfig, k.to, undefined, k.signal),
      ]);
      const r = explainUpdate(from, to, knobsFromMachineConfiguration(k.settings), k.forced);
      plan = r.ok ? r.value : { error: r.error };
    } catch (e) {
      if (!isStatusError(e, 'NotFound')) throw e;
      plan = {
        error: `config ${JSON.stringify(k.from)} or ${JSON.stringify(k.to)}: ${errorText(e)}`,
      };
    }
    if (this.#plans.size >= MaxPlans) this.#plans.clear();
    this.#plans.set(key, plan);
    return plan;
  }

  async #machineConfiguration(signal: AbortSignal): Promise<MachineConfiguration | undefined> {
    try {
      return await this.#client.get<MachineConfiguration>(
        Resources.machineConfiguration,
        MachineConfigurationName,
        undefined,
        signal,
      );
    } catch (e) {
      if (isStatusError(e, 'NotFound')) return undefined;
      throw e;
    }
  }
}

/**
 * Keeps PodDisruptionBudget status current, doing the disruption controller's job in-process: a
 * budget's status is recomputed whenever it is written and whenever a pod it covers is created,
 * changed or deleted, and before an eviction is judged against it.
 */
import { isStorageError, StorageErrorCode } from '../../ports/storage.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { decodeObject } from './codec.js';
import { requireType, type StoreContext } from './context.js';
import { budgetCoversPod, disruptionStatus } from './disruption.js';
import { cloneJson } from './json.js';
import { jsonEqual } from '../../lib/json-equal.js';
import { scopePrefix } from './keys.js';
import { MaxWriteAttempts } from './update.js';
import { commitUpdate, readCurrent, type Current } from './write.js';

export class DisruptionBudgets {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  get budgetType(): ResourceType {
    return requireType(this.#ctx, 'policy', 'PodDisruptionBudget');
  }

  get podType(): ResourceType {
    return requireType(this.#ctx, '', 'Pod');
  }

  async #list(rt: ResourceType, namespace: string): Promise<KubeObject[]> {
    const { items } = await this.#ctx.storage.list(scopePrefix(rt, namespace));
    return items.map((kv) => decodeObject(kv));
  }

  /** The budgets of the pod's namespace whose selector covers it. */
  async covering(pod: KubeObject): Promise<KubeObject[]> {
    const budgets = await this.#list(this.budgetType, pod.metadata.namespace ?? '');
    return budgets.filter((pdb) => budgetCoversPod(pdb, pod));
  }

  /** Recomputes the budgets covering any of these pod states (before and after a write). */
  async podsChanged(states: readonly (KubeObject | undefined)[]): Promise<void> {
    const names = new Set<string>();
    let namespace: string | undefined;
    for (const pod of states) {
      if (pod === undefined) continue;
      namespace = pod.metadata.namespace;
      for (const pdb of await this.covering(pod)) names.add(pdb.metadata.name ?? '');
    }
    for (const name of names) await this.refresh(namespace ?? '', name);
  }

  /** Writes the budget's recomputed status (if it changed); returns its latest state. */
  async refresh(namespace: string, name: string): Promise<Current | undefined> {
    for (let attempt = 1; ; attempt++) {
      const current = await readCurrent(this.#ctx, this.budgetType, namespace, name);
      if (current === undefined) return undefined;
      const pods = await this.#list(this.podType, namespace);
      const status = disruptionStatus(current.obj, pods, this.#ctx.clock.now());
      if (jsonEqual(status, current.obj['status'])) return current;
      const next = { ...cloneJson(current.obj), status };
      try {
        await commitUpdate({
          ctx: this.#ctx,
          rt: this.budgetType,
          current,
          next,
          options: {
            dryRun: false,
            observe: false,
          },
        });
        return await readCurrent(this.#ctx, this.budgetType, namespace, name);
      } catch (e) {
        if (!isStorageError(e, StorageErrorCode.Conflict) || attempt >= MaxWriteAttempts) throw e;
      }
    }
  }
}

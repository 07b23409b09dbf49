/**
 * POST pods/<name>/eviction: deletes the pod unless the PodDisruptionBudget covering it has no
 * disruption to spare (429 `Cannot evict pod as it would violate the pod's disruption budget.`,
 * with the DisruptionBudget cause). Pods that are finished, pending or already terminating are
 * deleted without asking; an unready pod may go when the budget is met anyway (or always, with
 * `unhealthyPodEvictionPolicy: AlwaysAllow`). More than one covering budget is a 500, as upstream.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import { isStorageError, StorageErrorCode } from '../../ports/storage.js';
import type { DeleteOptions, KubeObject, WriteOptions } from '../resource-store.js';
import type { StoreContext } from './context.js';
import { deleteObject, type Propagation } from './delete.js';
import { isPodReady } from './disruption.js';
import type { DisruptionBudgets } from './disruption-budgets.js';
import { groupResource } from './errors.js';
import { cloneJson, isJsonMap, type JsonMap } from './json.js';
import { MaxWriteAttempts } from './update.js';
import { commitUpdate, readCurrent } from './write.js';

interface EvictionRequest {
  readonly dryRun: boolean;
  readonly deleteOptions: DeleteOptions;
}

function parseEviction(body: unknown, podName: string, options: WriteOptions): EvictionRequest {
  if (!isJsonMap(body))
    throw StatusError.badRequest('the object provided is unrecognized (must be of type Eviction)');
  const meta = isJsonMap(body['metadata']) ? body['metadata'] : {};
  if (typeof meta['name'] === 'string' && meta['name'] !== '' && meta['name'] !== podName) {
    throw StatusError.badRequest('name in URL does not match name in Eviction object');
  }
  const raw = isJsonMap(body['deleteOptions']) ? body['deleteOptions'] : {};
  const dryRun = options.dryRun || (Array.isArray(raw['dryRun']) && raw['dryRun'].includes('All'));
  const pre = isJsonMap(raw['preconditions']) ? raw['preconditions'] : {};
  const policy = raw['propagationPolicy'];
  const deleteOptions: DeleteOptions = {
    preconditions: {
      ...(typeof pre['uid'] === 'string' ? { uid: pre['uid'] } : {}),
      ...(typeof pre['resourceVersion'] === 'string'
        ? { resourceVersion: pre['resourceVersion'] }
        : {}),
    },
    ...(policy === 'Background' || policy === 'Foreground' || policy === 'Orphan'
      ? { propagationPolicy: policy }
      : {}),
  };
  return { dryRun, deleteOptions };
}

/** Finished, pending and terminating pods are not protected by budgets. */
function canIgnoreBudget(pod: KubeObject): boolean {
  const status = isJsonMap(pod['status']) ? pod['status'] : {};
  const phase = status['phase'];
  return (
    phase === 'Succeeded' ||
    phase === 'Failed' ||
    phase === 'Pending' ||
    pod.metadata.deletionTimestamp !== undefined
  );
}

export class Evictions {
  readonly #ctx: StoreContext;
  readonly #budgets: DisruptionBudgets;
  readonly #propagation: Propagation;

  constructor(ctx: StoreContext, budgets: DisruptionBudgets, propagation: Propagation) {
    this.#ctx = ctx;
    this.#budgets = budgets;
    this.#propagation = propagation;
  }

  async evict(
    namespace: string,
    podName: string,
    body: unknown,
    options: WriteOptions,
  ): Promise<void> {
    const request = parseEviction(body, podName, options);
    const podType = this.#budgets.podType;
    for (let attempt = 1; ; attempt++) {
      const pod = await readCurrent(this.#ctx, podType, namespace, podName);
      if (pod === undefined) throw StatusError.notFound(groupResource(podType), podName);
      try {
        if (!canIgnoreBudget(pod.obj)) await this.#takeDisruption(pod.obj, request.dryRun);
        break;
      } catch (e) {
        if (!isStorageError(e, StorageErrorCode.Conflict) || attempt >= MaxWriteAttempts) throw e;
      }
    }
    await deleteObject({
      ctx: this.#ctx,
      propagation: this.#propagation,
      rt: podType,
      namespace,
      name: podName,
      options: {
        ...options,
        ...request.deleteOptions,
        dryRun: request.dryRun,
      },
    });
  }

  /** Checks the covering budget and records the disruption against it (CAS on the budget). */
  async #takeDisruption(pod: KubeObject, dryRun: boolean): Promise<void> {
    const budgets = await this.#budgets.covering(pod);
    if (budgets.length > 1) {
      throw StatusError.internal(
        new Error(
          'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
        ),
      );
    }
    const only = budgets[0];
    if (only === undefined) return;
    const current = await this.#budgets.refresh(
      only.metadata.namespace ?? '',
      only.metadata.name ?? '',
    );
    if (current === undefined) return;
    const pdb = current.obj;
    const status: JsonMap = isJsonMap(pdb['status']) ? pdb['status'] : {};
    const allowed = Number(status['disruptionsAllowed'] ?? 0);
    if (!isPodReady(pod) && unhealthyMayGo(pdb, status)) return;
    checkAllowed(pdb, status);
    if (dryRun) return;
    const disrupted = isJsonMap(status['disruptedPods']) ? status['disruptedPods'] : {};
    const next = cloneJson(pdb);
    next['status'] = {
      ...status,
      disruptedPods: { ...disrupted, [pod.metadata.name ?? '']: rfc3339(this.#ctx.clock.now()) },
      disruptionsAllowed: allowed - 1,
    };
    await commitUpdate({
      ctx: this.#ctx,
      rt: this.#budgets.budgetType,
      current,
      next,
      options: {
        dryRun: false,
        observe: false,
      },
    });
  }
}

/** An unready pod may go when the policy says so or the budget is met without it. */
function unhealthyMayGo(pdb: KubeObject, status: JsonMap): boolean {
  const spec = isJsonMap(pdb['spec']) ? pdb['spec'] : {};
  if (spec['unhealthyPodEvictionPolicy'] === 'AlwaysAllow') return true;
  const desired = Number(status['desiredHealthy'] ?? 0);
  return Number(status['currentHealthy'] ?? 0) >= desired && desired > 0;
}

/** 429 when the budget allows no disruption (403 when its status is corrupt). */
function checkAllowed(pdb: KubeObject, status: JsonMap): void {
  const name = pdb.metadata.name ?? '';
  const allowed = Number(status['disruptionsAllowed'] ?? 0);
  if (allowed < 0) {
    throw StatusError.forbidden(
      { group: 'policy', resource: 'poddisruptionbudget' },
      name,
      'pdb disruptions allowed is negative',
    );
  }
  if (allowed === 0) {
    throw StatusError.disruptionBudgetViolated(
      name,
      Number(status['desiredHealthy'] ?? 0),
      Number(status['currentHealthy'] ?? 0),
    );
  }
}

/**
 * Assembles the ResourceStore: the verbs, the read-only CRD resource, and the reactions that tie
 * kinds together after each write (owner-reference garbage collection, disruption budget status,
 * namespace termination). Besides the ResourceStore contract it offers what the process runs at
 * start and periodically: `seedNamespaces()` and `collectGarbage()`.
 */
import { isStatusError, StatusError } from '../../api/meta/v1/status-error.js';
import { isStorageError } from '../../ports/storage.js';
import type {
  DeleteOptions,
  KubeObject,
  ListQuery,
  ListResult,
  Patch,
  ResourceStore,
  WatchEventType,
  WatchQuery,
  WriteOptions,
  WriteSubresource,
} from '../resource-store.js';
import type { ResourceType, Verb } from '../resource-type.js';
import { newStoreContext, type ResourceStoreDeps, type StoreContext } from './context.js';
import { createObject } from './create.js';
import { CrdSource, isCrdType } from './crd-source.js';
import { deleteObject } from './delete.js';
import { DisruptionBudgets } from './disruption-budgets.js';
import { groupResource } from './errors.js';
import { Evictions } from './eviction.js';
import { GarbageCollector } from './garbage-collector.js';
import { listObjects } from './list.js';
import { namespaceType, SeedNamespaces } from './namespaces.js';
import { patchObject } from './patch.js';
import { updateObject } from './update.js';
import { watchObjects } from './watch.js';
import { readCurrent } from './write.js';

export type { ResourceStoreDeps } from './context.js';

/** The ResourceStore plus the process's housekeeping entry points. */
export interface ManagedResourceStore extends ResourceStore {
  /** Creates the seed namespaces that are missing (idempotent). */
  seedNamespaces(): Promise<void>;
  /** One garbage-collection sweep; returns how many objects it deleted or detached. */
  collectGarbage(): Promise<number>;
}

const SYSTEM: WriteOptions = {
  user: { name: 'system:apiserver', groups: ['system:masters'] },
  dryRun: false,
};

const isKind = (rt: ResourceType, group: string, kind: string): boolean =>
  rt.group === group && rt.kind === kind;

/** Storage failures that are not API answers (closed, unavailable) become 500 InternalError. */
async function guard<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    throw isStorageError(e) ? StatusError.internal(e) : e;
  }
}

function requireVerb(rt: ResourceType, verb: Verb): void {
  if (!rt.verbs.includes(verb)) throw StatusError.methodNotSupported(groupResource(rt), verb);
}

class Store implements ManagedResourceStore {
  readonly #ctx: StoreContext;
  readonly #gc: GarbageCollector;
  readonly #budgets: DisruptionBudgets;
  readonly #evictions: Evictions;
  readonly #crds: CrdSource;

  constructor(deps: ResourceStoreDeps) {
    this.#ctx = newStoreContext(deps);
    this.#gc = new GarbageCollector(this.#ctx);
    this.#budgets = new DisruptionBudgets(this.#ctx);
    this.#evictions = new Evictions(this.#ctx, this.#budgets, this.#gc);
    this.#crds = new CrdSource(this.#ctx);
    this.#ctx.observer = (rt, before, after) => this.#react(rt, before, after);
  }

  /** Cross-object reactions; failures are logged, never returned to the writer. */
  async #react(
    rt: ResourceType,
    before: KubeObject | undefined,
    after: KubeObject | undefined,
  ): Promise<void> {
    try {
      if (after === undefined && before !== undefined) await this.#deleted(rt, before);
      if (isKind(rt, '', 'Pod')) await this.#budgets.podsChanged([before, after]);
      if (after !== undefined) await this.#written(rt, after);
    } catch (e) {
      this.#ctx.log.warn('reaction to a write failed', { kind: rt.kind, error: String(e) });
    }
  }

  /** Dependents are collected; the last object of a terminating namespace lets it go. */
  async #deleted(rt: ResourceType, before: KubeObject): Promise<void> {
    await this.#gc.ownerDeleted(before);
    const namespace = before.metadata.namespace;
    if (rt.namespaced && namespace !== undefined) {
      await this.#gc.finishNamespace(namespaceType(this.#ctx), namespace);
    }
  }

  /** A budget's status follows its spec; a namespace marked for deletion is emptied. */
  async #written(rt: ResourceType, after: KubeObject): Promise<void> {
    if (isKind(rt, 'policy', 'PodDisruptionBudget')) {
      await this.#budgets.refresh(after.metadata.namespace ?? '', after.metadata.name ?? '');
    }
    if (isKind(rt, '', 'Namespace') && after.metadata.deletionTimestamp !== undefined) {
      await this.#gc.finishNamespace(rt, after.metadata.name ?? '');
    }
  }

  async get(rt: ResourceType, namespace: string | undefined, name: string): Promise<KubeObject> {
    requireVerb(rt, 'get');
    if (isCrdType(rt)) return this.#crds.get(rt, name);
    const current = await guard(readCurrent(this.#ctx, rt, namespace, name));
    if (current === undefined) throw StatusError.notFound(groupResource(rt), name);
    return current.obj;
  }

  async list(
    rt: ResourceType,
    namespace: string | undefined,
    query: ListQuery,
  ): Promise<ListResult> {
    requireVerb(rt, 'list');
    if (isCrdType(rt)) return this.#crds.list(rt, query);
    return guard(listObjects(this.#ctx, rt, namespace, query));
  }

  async create(
    rt: ResourceType,
    namespace: string | undefined,
    body: unknown,
    options: WriteOptions,
  ): Promise<KubeObject> {
    requireVerb(rt, 'create');
    return guard(createObject({ ctx: this.#ctx, rt, namespace, body, options }));
  }

  async update(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: WriteOptions & { readonly subresource?: WriteSubresource },
  ): Promise<KubeObject> {
    requireVerb(rt, 'update');
    return guard(updateObject({ ctx: this.#ctx, rt, namespace, name, body, options }));
  }

  async patch(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options: WriteOptions & { readonly subresource?: WriteSubresource; readonly force?: boolean },
  ): Promise<{ readonly object: KubeObject; readonly created: boolean }> {
    requireVerb(rt, 'patch');
    return guard(patchObject({ ctx: this.#ctx, rt, namespace, name, patch, options }));
  }

  async delete(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    options: WriteOptions & DeleteOptions,
  ): Promise<{ readonly object: KubeObject; readonly deleted: boolean }> {
    requireVerb(rt, 'delete');
    return guard(
      deleteObject({ ctx: this.#ctx, propagation: this.#gc, rt, namespace, name, options }),
    );
  }

  async watch(
    rt: ResourceType,
    namespace: string | undefined,
    query: WatchQuery,
    onEvent: (type: WatchEventType, object: KubeObject) => void,
  ): Promise<void> {
    requireVerb(rt, 'watch');
    if (isCrdType(rt)) return this.#crds.watch(rt, query, onEvent);
    return guard(watchObjects({ ctx: this.#ctx, rt, namespace, query, onEvent }));
  }

  async evict(
    namespace: string,
    podName: string,
    body: unknown,
    options: WriteOptions,
  ): Promise<void> {
    return guard(this.#evictions.evict(namespace, podName, body, options));
  }

  async seedNamespaces(): Promise<void> {
    const rt = namespaceType(this.#ctx);
    for (const name of SeedNamespaces) {
      try {
        await createObject({
          ctx: this.#ctx,
          rt,
          namespace: undefined,
          body: { metadata: { name } },
          options: SYSTEM,
        });
      } catch (e) {
        if (!isStatusError(e, 'AlreadyExists')) throw e;
      }
    }
  }

  async collectGarbage(): Promise<number> {
    const changed = await this.#gc.collectGarbage();
    const rt = namespaceType(this.#ctx);
    const { items } = await listObjects(this.#ctx, rt, undefined, {});
    for (const ns of items) {
      if (ns.metadata.deletionTimestamp !== undefined)
        await this.#gc.finishNamespace(rt, ns.metadata.name ?? '');
    }
    return changed;
  }
}

/** The API server's semantic core over `deps.storage`. */
export function createResourceStore(deps: ResourceStoreDeps): ManagedResourceStore {
  return new Store(deps);
}

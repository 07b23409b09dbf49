/**
 * RbacPolicyCache: the RBAC objects the authorizer reads, kept in memory as an informer keeps
 * them. `start` lists each kind and then watches it from the list's resourceVersion (a watch that
 * ends or reports an error is listed and watched again), so writes through any API server sharing
 * the storage arrive. `observe` takes an object this server has just written, so the request after
 * a write already sees it. An older resourceVersion never replaces a newer one, and a deletion
 * leaves a tombstone with its resourceVersion for as long as a late event could still arrive.
 */
import type {
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
} from '../../api/rbac/v1/rbac-kinds.js';
import type { Logger } from '../../ports/logger.js';
import type { KubeObject, ResourceStore, WatchEventType } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import type { RbacPolicy } from './rbac-authorizer.js';
import { errorText } from '../../lib/error-text.js';
import { setTimeout as sleep } from 'node:timers/promises';

export const RbacGroup = 'rbac.authorization.k8s.io';
const RbacKinds = ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'] as const;
export type RbacKind = (typeof RbacKinds)[number];

interface Entry {
  readonly resourceVersion: bigint;
  readonly object: KubeObject | undefined;
}

const keyOf = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

function revision(o: KubeObject): bigint {
  const rv = o.metadata.resourceVersion ?? '';
  return /^\d+$/.test(rv) ? BigInt(rv) : 0n;
}

function present<T>(entries: Map<string, Entry>): T[] {
  const out: T[] = [];
  for (const e of entries.values()) if (e.object !== undefined) out.push(e.object as T);
  return out;
}

export function isRbacKind(kind: string): kind is RbacKind {
  return (RbacKinds as readonly string[]).includes(kind);
}

export class RbacPolicyCache implements RbacPolicy {
  readonly #entries: Record<RbacKind, Map<string, Entry>> = {
    ClusterRole: new Map(),
    ClusterRoleBinding: new Map(),
    Role: new Map(),
    RoleBinding: new Map(),
  };
  /** Sorted views, rebuilt only after a change. */
  #views = new Map<string, readonly KubeObject[]>();

  /** Applies a watch event or a write's result. */
  observe(kind: RbacKind, type: WatchEventType | 'WRITTEN', object: KubeObject): void {
    if (type === 'BOOKMARK' || type === 'ERROR') return;
    const entries = this.#entries[kind];
    const key = keyOf(object);
    const rv = revision(object);
    const known = entries.get(key);
    if (known !== undefined && rv !== 0n && known.resourceVersion > rv) return;
    entries.set(key, { resourceVersion: rv, object: type === 'DELETED' ? undefined : object });
    this.#views.clear();
  }

  /** Replaces a kind's objects with a fresh list (after which the watch resumes). */
  replace(kind: RbacKind, objects: readonly KubeObject[]): void {
    const entries = this.#entries[kind];
    entries.clear();
    for (const o of objects) entries.set(keyOf(o), { resourceVersion: revision(o), object: o });
    this.#views.clear();
  }

  #view(kind: RbacKind, namespace?: string): readonly KubeObject[] {
    const viewKey = `${kind}/${namespace ?? '*'}`;
    let view = this.#views.get(viewKey);
    if (view === undefined) {
      view = present<KubeObject>(this.#entries[kind])
        .filter((o) => namespace === undefined || (o.metadata.namespace ?? '') === namespace)
        .sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
      this.#views.set(viewKey, view);
    }
    return view;
  }

  clusterRoleBindings(): Iterable<ClusterRoleBinding> {
    return this.#view('ClusterRoleBinding') as unknown as ClusterRoleBinding[];
  }

  roleBindings(namespace: string): Iterable<RoleBinding> {
    return this.#view('RoleBinding', namespace) as unknown as RoleBinding[];
  }

  clusterRoles(): Iterable<ClusterRole> {
    return this.#view('ClusterRole');
  }

  clusterRole(name: string): ClusterRole | undefined {
    return this.#entries.ClusterRole.get(`/${name}`)?.object;
  }

  role(namespace: string, name: string): Role | undefined {
    return this.#entries.Role.get(`${namespace}/${name}`)?.object;
  }

  /**
   * Lists and watches every RBAC kind until `signal` aborts; resolves once each kind is listed
   * (the cache is then complete).
   */
  async start(
    store: ResourceStore,
    types: Readonly<Record<RbacKind, ResourceType>>,
    signal: AbortSignal,
    log: Logger,
  ): Promise<void> {
    await Promise.all(
      RbacKinds.map(async (kind) => {
        const first = await this.#listAndWatch(store, kind, types[kind], signal);
        void this.#keepWatching({ store, kind, rt: types[kind], signal, log, first: first.ended });
      }),
    );
  }

  /** Lists the kind, then watches from there; resolves with a promise of the watch's end. */
  async #listAndWatch(
    store: ResourceStore,
    kind: RbacKind,
    rt: ResourceType,
    signal: AbortSignal,
  ): Promise<{ readonly ended: Promise<void> }> {
    const listed = await store.list(rt, undefined, {});
    this.replace(kind, listed.items);
    const ended = new AbortController();
    const stop = AbortSignal.any([signal, ended.signal]);
    const done = new Promise<void>((resolve) => {
      stop.addEventListener(
        'abort',
        () => {
          resolve();
        },
        { once: true },
      );
    });
    await store.watch(
      rt,
      undefined,
      { resourceVersion: listed.resourceVersion, signal: stop },
      (type, object) => {
        if (type === 'ERROR') ended.abort();
        else this.observe(kind, type, object);
      },
    );
    return { ended: done };
  }

  async #keepWatching({
    store,
    kind,
    rt,
    signal,
    log,
    first,
  }: {
    readonly store: ResourceStore;
    readonly kind: RbacKind;
    readonly rt: ResourceType;
    readonly signal: AbortSignal;
    readonly log: Logger;
    readonly first: Promise<void>;
  }): Promise<void> {
    let ended = first;
    while (!signal.aborted) {
      await ended;
      if (signal.aborted) return;
      try {
        ended = (await this.#listAndWatch(store, kind, rt, signal)).ended;
      } catch (e) {
        log.warn('RBAC cache: relisting failed; retrying', {
          kind,
          error: errorText(e),
        });
        await sleep(1000);
        ended = Promise.resolve();
      }
    }
  }
}

/**
 * A ResourceStore that hands each RBAC object it writes to the RbacPolicyCache as soon as the
 * write returns, so the next request of the same client is authorized with it (the cache's watch
 * would bring it a moment later). Dry runs change nothing and are not passed on.
 */
import type { ResourceStore } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { isRbacKind, RbacGroup, type RbacPolicyCache } from './rbac-policy-cache.js';

export function withRbacWriteThrough(inner: ResourceStore, cache: RbacPolicyCache): ResourceStore {
  const kindOf = (rt: ResourceType) =>
    rt.group === RbacGroup && isRbacKind(rt.kind) ? rt.kind : undefined;
  return {
    get: (...args) => inner.get(...args),
    list: (...args) => inner.list(...args),
    watch: (...args) => inner.watch(...args),
    evict: (...args) => inner.evict(...args),
    create: async (rt, namespace, body, options) => {
      const object = await inner.create(rt, namespace, body, options);
      const kind = kindOf(rt);
      if (kind !== undefined && !options.dryRun) cache.observe(kind, 'WRITTEN', object);
      return object;
    },
    update: async (rt, namespace, name, body, options) => {
      const object = await inner.update(rt, namespace, name, body, options);
      const kind = kindOf(rt);
      if (kind !== undefined && !options.dryRun) cache.observe(kind, 'WRITTEN', object);
      return object;
    },
    patch: async (rt, namespace, name, patch, options) => {
      const result = await inner.patch(rt, namespace, name, patch, options);
      const kind = kindOf(rt);
      if (kind !== undefined && !options.dryRun) cache.observe(kind, 'WRITTEN', result.object);
      return result;
    },
    delete: async (rt, namespace, name, options) => {
      const result = await inner.delete(rt, namespace, name, options);
      const kind = kindOf(rt);
      if (kind !== undefined && !options.dryRun)
        cache.observe(kind, result.deleted ? 'DELETED' : 'WRITTEN', result.object);
      return result;
    },
  };
}

/**
 * The read-only `customresourcedefinitions` resource: the CRDs of the custom kinds this server
 * serves, generated from `customResourceDefinitions()` rather than stored. Their identity is stable
 * (uid derived from the name, creationTimestamp of the store's start, resourceVersion 1), so
 * clients caching them see no churn; a watch sees them once and never again.
 */
import { createHash } from 'node:crypto';
import { customResourceDefinitions } from '../../api/crds.js';
import { StatusError } from '../../api/meta/v1/status-error.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import type { KubeObject, ListQuery, ListResult, WatchQuery } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import type { StoreContext } from './context.js';
import { groupResource } from './errors.js';
import { objectFilter } from './selectors.js';
import type { WatchListener } from './watch.js';

export function isCrdType(rt: ResourceType): boolean {
  return rt.group === 'apiextensions.k8s.io' && rt.kind === 'CustomResourceDefinition';
}

/** A UUID-shaped id derived from a name. */
function stableUid(name: string): string {
  const h = createHash('sha256').update(`crd/${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export class CrdSource {
  readonly #objects: readonly KubeObject[];
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
    const created = rfc3339(ctx.clock.now());
    this.#objects = customResourceDefinitions().map((crd) => ({
      ...crd,
      metadata: {
        name: crd.metadata.name ?? '',
        uid: stableUid(crd.metadata.name ?? ''),
        resourceVersion: '1',
        generation: 1,
        creationTimestamp: created,
        ...(crd.metadata.labels === undefined ? {} : { labels: crd.metadata.labels }),
      },
      status: {
        acceptedNames: crd.spec.names,
        storedVersions: crd.spec.versions.map((v) => v.name),
      },
    }));
  }

  get(rt: ResourceType, name: string): KubeObject {
    const found = this.#objects.find((o) => o.metadata.name === name);
    if (found === undefined) throw StatusError.notFound(groupResource(rt), name);
    return structuredClone(found);
  }

  async list(rt: ResourceType, query: ListQuery): Promise<ListResult> {
    const filter = objectFilter(rt, query.labelSelector, query.fieldSelector);
    const revision = await this.#ctx.storage.currentRevision();
    return {
      items: this.#objects.filter((o) => filter.matches(o)).map((o) => structuredClone(o)),
      resourceVersion: String(revision),
    };
  }

  watch(rt: ResourceType, query: WatchQuery, onEvent: WatchListener): Promise<void> {
    const filter = objectFilter(rt, query.labelSelector, query.fieldSelector);
    const rv = query.resourceVersion;
    if (rv === undefined || rv === '' || rv === '0') {
      for (const o of this.#objects) if (filter.matches(o)) onEvent('ADDED', structuredClone(o));
    }
    return Promise.resolve();
  }
}

/**
 * What every store operation shares: the injected ports, the registry, the compiled validators,
 * and the write observer that runs cross-object reactions (garbage collection, disruption budget
 * status, namespace cleanup) after a write. The observer is installed by `createResourceStore`, so
 * the modules that write never import the modules that react, and the import graph stays acyclic.
 */
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { Storage } from '../../ports/storage.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import type { ResourceTypeRegistry } from '../resource-types.js';
import { SchemaValidator } from './schema-validation.js';

export interface ResourceStoreDeps {
  readonly storage: Storage;
  readonly clock: Clock;
  /** A fresh object uid (a UUID in production; predictable in tests). */
  readonly newUid: () => string;
  readonly log: Logger;
  readonly registry: ResourceTypeRegistry;
}

/** Reacts to a committed write; `after` is undefined when the object was deleted. */
export type WriteObserver = (
  rt: ResourceType,
  before: KubeObject | undefined,
  after: KubeObject | undefined,
) => Promise<void>;

export interface StoreContext extends ResourceStoreDeps {
  readonly schemas: SchemaValidator;
  /** Set once by createResourceStore; a no-op until then. */
  observer: WriteObserver;
}

export function newStoreContext(deps: ResourceStoreDeps): StoreContext {
  return {
    ...deps,
    schemas: new SchemaValidator(),
    observer: () => Promise.resolve(),
  };
}

/** The registered type of a built-in kind the store itself reads (pods, namespaces, PDBs). */
export function requireType(ctx: StoreContext, group: string, kind: string): ResourceType {
  const rt = ctx.registry.byKind(group, kind);
  if (rt === undefined) throw new Error(`resource type ${kind}.${group} is not registered`);
  return rt;
}

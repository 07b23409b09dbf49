/**
 * What every store operation shares: the injected ports, the registry, the compiled validators,
 * and the write observer that runs cross-object reactions (garbage collection, disruption budget
 * status, namespace cleanup) after a write. The observer is installed by `createResourceStore`, so
 * the modules that write never import the modules that react, and the import graph stays acyclic.
 */
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { Storage } from '../../ports/storage.js';
import type { KubeObject, UserInfo, WriteSubresource } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import type { ResourceTypeRegistry } from '../resource-types.js';
import { SchemaValidator } from './schema-validation.js';
import { WatchCache } from './watch-cache.js';

/** What a validating admission plugin sees of a create or update, after validation. */
export interface AdmissionAttributes {
  readonly rt: ResourceType;
  readonly operation: 'create' | 'update';
  readonly subresource: WriteSubresource | undefined;
  readonly user: UserInfo;
  /** The object as it would be stored. */
  readonly object: KubeObject;
  /** The stored object an update replaces. */
  readonly old: KubeObject | undefined;
}

/**
 * Validating admission (NodeRestriction, CSR approval and signing permissions): throws a
 * StatusError to refuse the write, which then changes nothing.
 */
export type ValidatingAdmission = (attributes: AdmissionAttributes) => Promise<void>;

export interface ResourceStoreDeps {
  /** Plugins the process installs; none by default. */
  readonly admission?: ValidatingAdmission;
  readonly storage: Storage;
  readonly clock: Clock;
  /** A fresh object uid (a UUID in production; predictable in tests). */
  readonly newUid: () => string;
  readonly log: Logger;
  readonly registry: ResourceTypeRegistry;
}

/** Reacts to a committed write; `after` is undefined when the object was deleted. */
type WriteObserver = (
  rt: ResourceType,
  before: KubeObject | undefined,
  after: KubeObject | undefined,
) => Promise<void>;

export interface StoreContext extends ResourceStoreDeps {
  readonly schemas: SchemaValidator;
  /** Answers lists and watches at `resourceVersion=0` without reading storage. */
  readonly watchCache: WatchCache;
  /** Set once by createResourceStore; a no-op until then. */
  observer: WriteObserver;
}

export function newStoreContext(deps: ResourceStoreDeps): StoreContext {
  return {
    ...deps,
    schemas: new SchemaValidator(),
    watchCache: new WatchCache(deps.storage, deps.log),
    observer: () => Promise.resolve(),
  };
}

/** The registered type of a built-in kind the store itself reads (pods, namespaces, PDBs). */
export function requireType(ctx: StoreContext, group: string, kind: string): ResourceType {
  const rt = ctx.registry.byKind(group, kind);
  if (rt === undefined) throw new Error(`resource type ${kind}.${group} is not registered`);
  return rt;
}

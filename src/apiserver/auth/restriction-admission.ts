/**
 * Admission checks on the bodies of creates, which the authorizer cannot see (a POST names no
 * object): as NodeRestriction, a node may register only its own Node, Lease and
 * MachineConfigNode; the node-bootstrapper may create only node-token Secrets. Wraps a
 * ResourceStore; every other call passes straight through.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import type {
  DeleteOptions,
  KubeObject,
  ListQuery,
  ListResult,
  Patch,
  ResourceStore,
  UserInfo,
  WatchEventType,
  WatchQuery,
  WriteOptions,
} from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { nodeNameOf, SystemIdentity } from './identities.js';
import { NodeTokenNamespace, NodeTokenSecretType } from './node-token.js';

function bodyOf(body: unknown): { name: string; type: unknown } {
  if (typeof body !== 'object' || body === null) return { name: '', type: undefined };
  const record = body as { metadata?: { name?: unknown }; type?: unknown };
  const name = record.metadata?.name;
  return { name: typeof name === 'string' ? name : '', type: record.type };
}

const gr = (rt: ResourceType): { group: string; resource: string } => ({
  group: rt.group,
  resource: rt.plural,
});

function checkNodeCreate(node: string, rt: ResourceType, name: string): void {
  const kind = `${rt.group}:${rt.plural}`;
  if (kind === ':nodes' && name !== node) {
    throw StatusError.forbidden(
      gr(rt),
      name,
      `node "${node}" is not allowed to modify node "${name}"`,
    );
  }
  if (kind === 'coordination.k8s.io:leases' && name !== node) {
    throw StatusError.forbidden(
      gr(rt),
      name,
      'can only access node lease with the same name as the requesting node',
    );
  }
  if (kind === 'machineconfiguration.openshift.io:machineconfignodes' && name !== node) {
    throw StatusError.forbidden(
      gr(rt),
      name,
      `node "${node}" is not allowed to modify machineconfignode "${name}"`,
    );
  }
}

function checkBootstrapCreate(
  user: UserInfo,
  rt: ResourceType,
  namespace: string | undefined,
  body: unknown,
): void {
  if (rt.group !== '' || rt.plural !== 'secrets') return;
  const { name, type } = bodyOf(body);
  if (namespace !== NodeTokenNamespace || type !== NodeTokenSecretType) {
    throw StatusError.forbidden(
      gr(rt),
      name,
      `user "${user.name}" may only create secrets of type "${NodeTokenSecretType}" in the namespace "${NodeTokenNamespace}"`,
    );
  }
}

/** Checks a create as NodeRestriction would; throws a 403 StatusError when it is refused. */
export function admitCreate(
  user: UserInfo,
  rt: ResourceType,
  namespace: string | undefined,
  body: unknown,
): void {
  const node = nodeNameOf(user);
  if (node !== undefined) checkNodeCreate(node, rt, bodyOf(body).name);
  if (user.name === SystemIdentity.bootstrap.name) checkBootstrapCreate(user, rt, namespace, body);
}

class RestrictionAdmissionStore implements ResourceStore {
  readonly #inner: ResourceStore;

  constructor(inner: ResourceStore) {
    this.#inner = inner;
  }

  get(rt: ResourceType, namespace: string | undefined, name: string): Promise<KubeObject> {
    return this.#inner.get(rt, namespace, name);
  }

  list(rt: ResourceType, namespace: string | undefined, query: ListQuery): Promise<ListResult> {
    return this.#inner.list(rt, namespace, query);
  }

  async create(
    rt: ResourceType,
    namespace: string | undefined,
    body: unknown,
    options: WriteOptions,
  ): Promise<KubeObject> {
    admitCreate(options.user, rt, namespace, body);
    return this.#inner.create(rt, namespace, body, options);
  }

  update(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: WriteOptions & { readonly subresource?: 'status' },
  ): Promise<KubeObject> {
    return this.#inner.update(rt, namespace, name, body, options);
  }

  patch(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options: WriteOptions & { readonly subresource?: 'status'; readonly force?: boolean },
  ): Promise<{ readonly object: KubeObject; readonly created: boolean }> {
    return this.#inner.patch(rt, namespace, name, patch, options);
  }

  delete(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    options: WriteOptions & DeleteOptions,
  ): Promise<{ readonly object: KubeObject; readonly deleted: boolean }> {
    return this.#inner.delete(rt, namespace, name, options);
  }

  watch(
    rt: ResourceType,
    namespace: string | undefined,
    query: WatchQuery,
    onEvent: (type: WatchEventType, object: KubeObject) => void,
  ): Promise<void> {
    return this.#inner.watch(rt, namespace, query, onEvent);
  }

  evict(namespace: string, podName: string, body: unknown, options: WriteOptions): Promise<void> {
    return this.#inner.evict(namespace, podName, body, options);
  }
}

/** `store` with the create-time identity checks in front of it. */
export function withRestrictionAdmission(store: ResourceStore): ResourceStore {
  return new RestrictionAdmissionStore(store);
}

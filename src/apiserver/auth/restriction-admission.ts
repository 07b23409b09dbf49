/**
 * Identity admission: the checks the authorizer cannot make because they depend on the request
 * body or the stored object. As Kubernetes' NodeRestriction plugin, a node may create, update and
 * patch only its own Node (and status), Lease and MachineConfigNode, and evict or update the status
 * of only the pods bound to it. What a node may change on its own Node (labels, taints) needs the
 * object as it would be stored: node-restriction.ts, a validating admission plugin of the store.
 * Wraps a ResourceStore and answers 403 with NodeRestriction's messages; every other call passes
 * straight through.
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
  WriteSubresource,
} from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { nodeNameOf } from './identities.js';

function nameOf(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const name = (body as { metadata?: { name?: unknown } }).metadata?.name;
  return typeof name === 'string' ? name : '';
}

const gr = (rt: ResourceType): { group: string; resource: string } => ({
  group: rt.group,
  resource: rt.plural,
});

/** Create, update or patch of `name` by node `node`. */
function checkNodeWrite(node: string, rt: ResourceType, name: string): void {
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

/** Checks a create as NodeRestriction would; throws a 403 StatusError when it is refused. */
function admitCreate(user: UserInfo, rt: ResourceType, body: unknown): void {
  const node = nodeNameOf(user);
  if (node !== undefined) checkNodeWrite(node, rt, nameOf(body));
}

const isPods = (rt: ResourceType): boolean => rt.group === '' && rt.plural === 'pods';

class RestrictionAdmissionStore implements ResourceStore {
  readonly #inner: ResourceStore;
  readonly #pods: ResourceType | undefined;

  constructor(inner: ResourceStore, pods: ResourceType | undefined) {
    this.#inner = inner;
    this.#pods = pods;
  }

  /** A node may touch a pod only if it is bound to it; `what` completes the refusal. */
  async #checkPodBound(
    node: string,
    namespace: string,
    podName: string,
    refusal: string,
  ): Promise<void> {
    const pods = this.#pods;
    if (pods === undefined)
      throw StatusError.forbidden({ group: '', resource: 'pods' }, podName, refusal);
    const pod = await this.#inner.get(pods, namespace, podName);
    const spec = pod['spec'] as { nodeName?: unknown } | undefined;
    if (spec?.nodeName !== node) throw StatusError.forbidden(gr(pods), podName, refusal);
  }

  async #admitModify({
    user,
    rt,
    namespace,
    name,
    subresource,
  }: {
    readonly user: UserInfo;
    readonly rt: ResourceType;
    readonly namespace: string | undefined;
    readonly name: string;
    readonly subresource: string | undefined;
  }): Promise<void> {
    const node = nodeNameOf(user);
    if (node === undefined) return;
    if (isPods(rt) && subresource === 'status') {
      const refusal = `node ${JSON.stringify(node)} can only update pod status for pods with spec.nodeName set to itself`;
      await this.#checkPodBound(node, namespace ?? '', name, refusal);
    } else checkNodeWrite(node, rt, name);
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
    admitCreate(options.user, rt, body);
    return this.#inner.create(rt, namespace, body, options);
  }

  async update(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: WriteOptions & { readonly subresource?: WriteSubresource },
  ): Promise<KubeObject> {
    await this.#admitModify({
      user: options.user,
      rt,
      namespace,
      name,
      subresource: options.subresource,
    });
    return this.#inner.update(rt, namespace, name, body, options);
  }

  async patch(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options: WriteOptions & { readonly subresource?: WriteSubresource; readonly force?: boolean },
  ): Promise<{ readonly object: KubeObject; readonly created: boolean }> {
    await this.#admitModify({
      user: options.user,
      rt,
      namespace,
      name,
      subresource: options.subresource,
    });
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

  async evict(
    namespace: string,
    podName: string,
    body: unknown,
    options: WriteOptions,
  ): Promise<void> {
    const node = nodeNameOf(options.user);
    if (node !== undefined) {
      await this.#checkPodBound(
        node,
        namespace,
        podName,
        `node ${node} can only evict pods with spec.nodeName set to itself`,
      );
    }
    return this.#inner.evict(namespace, podName, body, options);
  }
}

/**
 * `store` with identity admission in front of it. `pods` is the served Pod type, read to check
 * which node a pod is bound to.
 */
export function withRestrictionAdmission(
  store: ResourceStore,
  pods: ResourceType | undefined,
): ResourceStore {
  return new RestrictionAdmissionStore(store, pods);
}

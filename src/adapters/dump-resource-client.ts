/**
 * A ResourceClient over objects read from a dump (`kubectl get -o yaml` files, a must-gather's
 * resources) instead of an API server: GET and LIST answer what the dump holds, as the server
 * would have answered them then (NotFound for an object it does not hold); every write, watch and
 * eviction is refused, so code that reads through it (`mco rollout preview --from-dir`) cannot
 * change anything.
 */
import { StatusError } from '../api/meta/v1/status-error.js';
import type {
  ApiObject,
  ClientList,
  ClientListOptions,
  ResourceClient,
  ResourceRef,
} from '../ports/resource-client.js';

const groupOf = (apiVersion: string | undefined) => {
  const v = apiVersion ?? '';
  return v.includes('/') ? v.slice(0, v.indexOf('/')) : '';
};

export class DumpResourceClient implements ResourceClient {
  readonly #byKind = new Map<string, ApiObject[]>();
  readonly #source: string;

  /** `source` names the dump in refusals. Later objects of the same name replace earlier ones. */
  constructor(objects: readonly ApiObject[], source: string) {
    this.#source = source;
    for (const o of objects) {
      const key = `${groupOf(o.apiVersion)}/${o.kind ?? ''}`;
      const list = this.#byKind.get(key) ?? [];
      const at = list.findIndex(
        (x) => x.metadata.name === o.metadata.name && x.metadata.namespace === o.metadata.namespace,
      );
      if (at >= 0) list[at] = o;
      else list.push(o);
      this.#byKind.set(key, list);
    }
  }

  #of(ref: ResourceRef): ApiObject[] {
    return this.#byKind.get(`${ref.group}/${ref.kind}`) ?? [];
  }

  #readOnly(what: string): Promise<never> {
    return Promise.reject(new Error(`${this.#source} is a dump: it cannot ${what}`));
  }

  get<T extends ApiObject>(ref: ResourceRef, name: string, namespace?: string): Promise<T> {
    const found = this.#of(ref).find(
      (o) =>
        o.metadata.name === name &&
        (!ref.namespaced || (o.metadata.namespace ?? '') === (namespace ?? '')),
    );
    return found === undefined
      ? Promise.reject(StatusError.notFound({ group: ref.group, resource: ref.plural }, name))
      : Promise.resolve(structuredClone(found) as T);
  }

  list<T extends ApiObject>(
    ref: ResourceRef,
    options?: ClientListOptions & { readonly namespace?: string },
  ): Promise<ClientList<T>> {
    if (options?.labelSelector !== undefined || options?.fieldSelector !== undefined)
      return Promise.reject(new Error(`${this.#source} is a dump: it lists without selectors`));
    const items = this.#of(ref).filter(
      (o) => options?.namespace === undefined || o.metadata.namespace === options.namespace,
    );
    return Promise.resolve({ items: structuredClone(items) as T[], resourceVersion: '' });
  }

  watch(): Promise<never> {
    return this.#readOnly('be watched');
  }
  create(): Promise<never> {
    return this.#readOnly('create');
  }
  update(): Promise<never> {
    return this.#readOnly('update');
  }
  updateStatus(): Promise<never> {
    return this.#readOnly('update a status');
  }
  updateApproval(): Promise<never> {
    return this.#readOnly('approve');
  }
  patch(): Promise<never> {
    return this.#readOnly('patch');
  }
  delete(): Promise<never> {
    return this.#readOnly('delete');
  }
  evict(): Promise<never> {
    return this.#readOnly('evict');
  }
}

/**
 * The daemon's node identity: a ResourceClient from a kubeconfig on the node (upstream reads the
 * kubelet's `/var/lib/kubelet/kubeconfig`), the files it names read on the node too (through the
 * host's files, so a node root is never left), as the kubelet wrote them. Every call reads the
 * kubeconfig and its files again and builds a new connection when they changed: the kubelet
 * rotates its client certificate in place, and node writes are few.
 */
import type { NodeFiles } from '../ports/host.js';
import type {
  ApiObject,
  ClientList,
  ClientListOptions,
  ClientWatchEvent,
  ClientWatchOptions,
  ClientWriteOptions,
  PatchKind,
  ResourceClient,
  ResourceRef,
} from '../ports/resource-client.js';
import { parseKubeconfig, selectKubeconfigContext } from '../lib/kubeconfig.js';
import {
  credentialsFromSelection,
  HttpsResourceClient,
  selectionFiles,
} from './https-resource-client.js';

export class NodeKubeconfigClient implements ResourceClient {
  readonly #files: Pick<NodeFiles, 'read'>;
  readonly #path: string;
  #current: { readonly key: string; readonly client: HttpsResourceClient } | undefined;

  /** `path` is absolute on the node, e.g. `/var/lib/kubelet/kubeconfig`. */
  constructor(files: Pick<NodeFiles, 'read'>, path: string) {
    this.#files = files;
    this.#path = path;
  }

  async #read(path: string): Promise<string> {
    const bytes = await this.#files.read(path);
    if (bytes === undefined) throw new Error(`${path}: no such file on the node`);
    return Buffer.from(bytes).toString('utf8');
  }

  /** The client for the kubeconfig as it is on the node now. */
  async #client(): Promise<HttpsResourceClient> {
    const text = await this.#read(this.#path);
    // Relative paths resolve against the kubeconfig's folder, absolute ones are node paths too.
    const selection = selectKubeconfigContext(parseKubeconfig(text, this.#path));
    const contents = new Map<string, string>();
    for (const file of selectionFiles(selection)) contents.set(file, await this.#read(file));
    const key = JSON.stringify([text, ...contents.values()]);
    if (this.#current?.key === key) return this.#current.client;
    const client = new HttpsResourceClient(
      credentialsFromSelection(selection, (file) => contents.get(file) ?? ''),
    );
    this.#current?.client.close();
    this.#current = { key, client };
    return client;
  }

  close(): void {
    this.#current?.client.close();
  }

  async get<T extends ApiObject>(
    ref: ResourceRef,
    name: string,
    namespace?: string,
    signal?: AbortSignal,
  ): Promise<T> {
    return (await this.#client()).get<T>(ref, name, namespace, signal);
  }

  async list<T extends ApiObject>(
    ref: ResourceRef,
    options?: ClientListOptions & { readonly namespace?: string; readonly signal?: AbortSignal },
  ): Promise<ClientList<T>> {
    return (await this.#client()).list<T>(ref, options);
  }

  async watch<T extends ApiObject>(
    ref: ResourceRef,
    options: ClientWatchOptions & { readonly namespace?: string },
    onEvent: (event: ClientWatchEvent<T>) => void,
  ): Promise<void> {
    return (await this.#client()).watch<T>(ref, options, onEvent);
  }

  async create<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options?: ClientWriteOptions,
  ): Promise<T> {
    return (await this.#client()).create<T>(ref, object, options);
  }

  async update<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options?: ClientWriteOptions,
  ): Promise<T> {
    return (await this.#client()).update<T>(ref, object, options);
  }

  async updateStatus<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options?: ClientWriteOptions,
  ): Promise<T> {
    return (await this.#client()).updateStatus<T>(ref, object, options);
  }

  async updateApproval<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    options?: ClientWriteOptions,
  ): Promise<T> {
    return (await this.#client()).updateApproval<T>(ref, object, options);
  }

  async patch<T extends ApiObject>(
    ref: ResourceRef,
    name: string,
    patch: unknown,
    kind: PatchKind,
    options?: ClientWriteOptions & {
      readonly namespace?: string;
      readonly subresource?: 'status';
      readonly force?: boolean;
    },
  ): Promise<T> {
    return (await this.#client()).patch<T>(ref, name, patch, kind, options);
  }

  async delete(
    ref: ResourceRef,
    name: string,
    namespace?: string,
    options?: ClientWriteOptions & {
      readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
    },
  ): Promise<void> {
    await (await this.#client()).delete(ref, name, namespace, options);
  }

  async evict(namespace: string, podName: string, signal?: AbortSignal): Promise<void> {
    await (await this.#client()).evict(namespace, podName, signal);
  }
}

/**
 * An in-memory ResourceClient for reconciler unit tests: objects by kind and name, writes and
 * reads recorded in order, resourceVersions counted, NotFound/AlreadyExists/Conflict as
 * StatusErrors (a patch naming `metadata.resourceVersion` is a precondition, as on a real server).
 * Watches are not supported (the tests hand reconcilers caches directly).
 */
import { StatusError } from '../../src/api/meta/v1/status-error.js';
import type {
  ApiObject,
  ClientList,
  ResourceClient,
  ResourceRef,
} from '../../src/ports/resource-client.js';

export interface RecordedWrite {
  readonly verb:
    'create' | 'update' | 'updateStatus' | 'updateApproval' | 'patch' | 'delete' | 'evict';
  readonly kind: string;
  readonly name: string;
  readonly body?: unknown;
}

function key(ref: ResourceRef, name: string, namespace?: string): string {
  return `${ref.plural}/${namespace ?? ''}/${name}`;
}

function gr(ref: ResourceRef) {
  return { group: ref.group, resource: ref.plural };
}

export class FakeClient implements ResourceClient {
  readonly objects = new Map<string, ApiObject>();
  readonly writes: RecordedWrite[] = [];
  /** `get kind/name` and `list kind` of every read. */
  readonly reads: string[] = [];
  #rv = 1;

  seed<T extends ApiObject>(ref: ResourceRef, object: T): T {
    const stored = {
      ...object,
      metadata: { ...object.metadata, resourceVersion: String(this.#rv++) },
    };
    this.objects.set(key(ref, object.metadata.name ?? '', object.metadata.namespace), stored);
    return stored;
  }

  get<T extends ApiObject>(ref: ResourceRef, name: string, namespace?: string): Promise<T> {
    this.reads.push(`get ${ref.kind}/${name}`);
    return this.#current<T>(ref, name, namespace);
  }

  #current<T extends ApiObject>(ref: ResourceRef, name: string, namespace?: string): Promise<T> {
    const o = this.objects.get(key(ref, name, namespace));
    if (o === undefined) return Promise.reject(StatusError.notFound(gr(ref), name));
    return Promise.resolve(structuredClone(o) as T);
  }

  list<T extends ApiObject>(
    ref: ResourceRef,
    options?: { namespace?: string },
  ): Promise<ClientList<T>> {
    this.reads.push(`list ${ref.kind}`);
    const prefix = `${ref.plural}/${options?.namespace ?? ''}`;
    const items = [...this.objects.entries()]
      .filter(([k]) => k.startsWith(options?.namespace === undefined ? `${ref.plural}/` : prefix))
      .map(([, v]) => structuredClone(v) as T);
    return Promise.resolve({ items, resourceVersion: String(this.#rv) });
  }

  watch(): Promise<void> {
    return Promise.reject(new Error('FakeClient does not watch'));
  }

  create<T extends ApiObject>(ref: ResourceRef, object: T): Promise<T> {
    const name = object.metadata.name ?? '';
    this.writes.push({ verb: 'create', kind: ref.kind, name, body: object });
    if (this.objects.has(key(ref, name, object.metadata.namespace)))
      return Promise.reject(StatusError.alreadyExists(gr(ref), name));
    return Promise.resolve(this.seed(ref, object));
  }

  #replace<T extends ApiObject>(
    ref: ResourceRef,
    object: T,
    verb: 'update' | 'updateStatus' | 'updateApproval',
  ): Promise<T> {
    const name = object.metadata.name ?? '';
    this.writes.push({ verb, kind: ref.kind, name, body: object });
    const current = this.objects.get(key(ref, name, object.metadata.namespace));
    if (current === undefined) return Promise.reject(StatusError.notFound(gr(ref), name));
    if (
      object.metadata.resourceVersion !== undefined &&
      object.metadata.resourceVersion !== current.metadata.resourceVersion
    )
      return Promise.reject(StatusError.conflict(gr(ref), name));
    return Promise.resolve(this.seed(ref, object));
  }

  update<T extends ApiObject>(ref: ResourceRef, object: T): Promise<T> {
    return this.#replace(ref, object, 'update');
  }

  updateStatus<T extends ApiObject>(ref: ResourceRef, object: T): Promise<T> {
    return this.#replace(ref, object, 'updateStatus');
  }

  updateApproval<T extends ApiObject>(ref: ResourceRef, object: T): Promise<T> {
    return this.#replace(ref, object, 'updateApproval');
  }

  async patch<T extends ApiObject>(
    ref: ResourceRef,
    name: string,
    patch: unknown,
    _kind: unknown,
    options?: { namespace?: string },
  ): Promise<T> {
    this.writes.push({ verb: 'patch', kind: ref.kind, name, body: patch });
    const current = await this.#current<T>(ref, name, options?.namespace);
    const precondition = (patch as { metadata?: { resourceVersion?: unknown } } | null)?.metadata
      ?.resourceVersion;
    if (precondition !== undefined && precondition !== current.metadata.resourceVersion)
      throw StatusError.conflict(gr(ref), name);
    return this.seed(ref, mergePatch(current, patch) as T);
  }

  delete(ref: ResourceRef, name: string, namespace?: string): Promise<void> {
    this.writes.push({ verb: 'delete', kind: ref.kind, name });
    if (!this.objects.delete(key(ref, name, namespace)))
      return Promise.reject(StatusError.notFound(gr(ref), name));
    return Promise.resolve();
  }

  evict(namespace: string, podName: string): Promise<void> {
    this.writes.push({ verb: 'evict', kind: 'Pod', name: `${namespace}/${podName}` });
    return Promise.resolve();
  }

  /** The recorded writes as `verb kind/name` lines. */
  log(): string[] {
    return this.writes.map((w) => `${w.verb} ${w.kind}/${w.name}`);
  }
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) out[k] = mergePatch(out[k], v);
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== null));
}

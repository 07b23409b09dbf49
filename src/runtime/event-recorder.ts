/**
 * Records core/v1 Events through the API, as client-go's EventRecorder does for upstream's
 * controllers (`SelectingAll`, `RenderedConfigGenerated`, `SetDesiredConfig`, `DrainFailed`, …;
 * docs/reference/catalog.md §A.4). Events about cluster-scoped objects (pools, nodes) go to the `default`
 * namespace, as client-go puts them. A repeat of the same event bumps `count` on the existing
 * Event instead of creating another (client-go's correlator). An object given by name only (the
 * daemon knows its Node by name) is read once per event for its uid, which `kubectl describe`
 * selects events by (`involvedObject.uid`). Recording never fails the caller: an event is a
 * notice, so a write error is logged and dropped.
 */
import { EventType, type Event } from '../api/core/v1/event.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { type Clock } from '../ports/clock.js';
import { rfc3339 } from '../api/meta/v1/time.js';
import type { Logger } from '../ports/logger.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../ports/resource-client.js';
import { errorText } from '../lib/error-text.js';

export interface EventRecorder {
  /** Writes (or counts again) an event about `object`; resolves when done, never rejects. */
  event(
    ref: ResourceRef,
    object: ApiObject,
    type: EventType,
    reason: string,
    message: string,
  ): Promise<void>;
}

/** Discards events (unit tests of reconcilers that do not look at them). */
export const noEvents: EventRecorder = { event: () => Promise.resolve() };

export interface ApiEventRecorderOptions {
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  /** `source.component`, e.g. `machineconfigcontroller-rendercontroller`. */
  readonly component: string;
  /** `source.host` / `reportingInstance`; optional. */
  readonly host?: string;
}

interface Seen {
  readonly namespace: string;
  readonly name: string;
  count: number;
}

/** Cluster-scoped objects' events live here (client-go: metav1.NamespaceDefault). */
export const ClusterScopedEventNamespace = 'default';

/** Remembered repeats; old entries are dropped first beyond this (client-go's LRU holds 4096). */
const MaxRemembered = 4096;

export class ApiEventRecorder implements EventRecorder {
  readonly #options: ApiEventRecorderOptions;
  readonly #seen = new Map<string, Seen>();
  #seq = 0;

  constructor(options: ApiEventRecorderOptions) {
    this.#options = options;
  }

  async event(
    ref: ResourceRef,
    object: ApiObject,
    type: EventType,
    reason: string,
    message: string,
  ): Promise<void> {
    const { log } = this.#options;
    const meta =
      object.metadata.uid === undefined ? await this.#withUid(ref, object) : object.metadata;
    const namespace =
      ref.namespaced && meta.namespace !== undefined && meta.namespace !== ''
        ? meta.namespace
        : ClusterScopedEventNamespace;
    const key = [ref.kind, namespace, meta.name ?? '', meta.uid ?? '', type, reason, message].join(
      '\u0000',
    );
    log.info('event', { kind: ref.kind, object: meta.name, type, reason, message });
    try {
      const seen = this.#seen.get(key);
      if (seen !== undefined && (await this.#bump(seen))) return;
      await this.#create({
        ref,
        object: { ...object, metadata: meta },
        namespace,
        key,
        what: {
          type,
          reason,
          message,
        },
      });
    } catch (e) {
      log.warn('could not record event', {
        reason,
        object: meta.name,
        error: errorText(e),
      });
    }
  }

  /** The object's metadata with its uid (and resourceVersion) read from the API; as given if unreadable. */
  async #withUid(ref: ResourceRef, object: ApiObject): Promise<ApiObject['metadata']> {
    const meta = object.metadata;
    if (meta.name === undefined) return meta;
    try {
      const live = await this.#options.client.get(
        ref,
        meta.name,
        ref.namespaced ? meta.namespace : undefined,
      );
      const { uid, resourceVersion } = live.metadata;
      return {
        ...meta,
        ...(uid === undefined ? {} : { uid }),
        ...(resourceVersion === undefined ? {} : { resourceVersion }),
      };
    } catch (e) {
      this.#options.log.debug('no uid for the event object', {
        object: meta.name,
        error: errorText(e),
      });
      return meta;
    }
  }

  /** Counts a repeat on the stored Event; false when that Event is gone. */
  async #bump(seen: Seen): Promise<boolean> {
    const { client, clock } = this.#options;
    try {
      await client.patch(
        Resources.event,
        seen.name,
        { count: seen.count + 1, lastTimestamp: rfc3339(clock.now()) },
        'merge',
        { namespace: seen.namespace },
      );
      seen.count++;
      return true;
    } catch (e) {
      if (isStatusError(e, 'NotFound')) return false;
      throw e;
    }
  }

  async #create({
    ref,
    object,
    namespace,
    key,
    what,
  }: {
    readonly ref: ResourceRef;
    readonly object: ApiObject;
    readonly namespace: string;
    readonly key: string;
    readonly what: { type: EventType; reason: string; message: string };
  }): Promise<void> {
    const { client, clock, component, host } = this.#options;
    const now = clock.now();
    const meta = object.metadata;
    // client-go names events `<object>.<unix nanos in hex>`; the sequence keeps names unique.
    const nanos = BigInt(now) * 1_000_000n + BigInt(this.#seq++ % 1_000_000);
    const name = `${meta.name ?? 'unknown'}.${nanos.toString(16)}`;
    const stamp = rfc3339(now);
    const event: Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        kind: ref.kind,
        apiVersion: ref.group === '' ? ref.version : `${ref.group}/${ref.version}`,
        name: meta.name ?? '',
        ...(ref.namespaced && meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
        ...(meta.uid === undefined ? {} : { uid: meta.uid }),
        ...(meta.resourceVersion === undefined ? {} : { resourceVersion: meta.resourceVersion }),
      },
      reason: what.reason,
      message: what.message,
      source: { component, ...(host === undefined ? {} : { host }) },
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      count: 1,
      type: what.type,
      reportingComponent: component,
      reportingInstance: host ?? '',
    };
    await client.create(Resources.event, event);
    if (this.#seen.size >= MaxRemembered) {
      const oldest = this.#seen.keys().next();
      if (oldest.done !== true) this.#seen.delete(oldest.value);
    }
    this.#seen.set(key, { namespace, name, count: 1 });
  }
}

export { EventType };

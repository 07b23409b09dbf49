import type { ResourceStore } from '../../src/apiserver/resource-store.js';

/** What a watch-recording store saw: each watch's signal, and the events it handed on. */
export interface WatchRecord {
  readonly signals: AbortSignal[];
  events: number;
}

/** `store` as it is, except that every watch it starts is recorded. */
export function watchRecordingStore(store: ResourceStore): {
  store: ResourceStore;
  record: WatchRecord;
} {
  const record: WatchRecord = { signals: [], events: 0 };
  const recording = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'watch') {
        const watch: ResourceStore['watch'] = (rt, ns, query, onEvent) => {
          record.signals.push(query.signal);
          return target.watch(rt, ns, query, (type, object) => {
            record.events += 1;
            onEvent(type, object);
          });
        };
        return watch;
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
  return { store: recording, record };
}

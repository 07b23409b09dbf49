/**
 * An index over an informer's cache (client-go's Indexer with one index function): objects by a
 * value computed from each, kept current from the informer's events, so a reader finds "the pods
 * on node n" without scanning the cache or asking the API server.
 */
import type { ApiObject } from '../ports/resource-client.js';
import { objectKey, type Informer } from './informer.js';

export class InformerIndex<T extends ApiObject> {
  readonly #by = new Map<string, Map<string, T>>();
  readonly #valueOf: (object: T) => string | undefined;

  /** `valueOf` gives the index value of an object (undefined: not indexed). */
  constructor(informer: Informer<T>, valueOf: (object: T) => string | undefined) {
    this.#valueOf = valueOf;
    informer.addHandler({
      onAdd: (o) => {
        this.#put(o);
      },
      onUpdate: (old, o) => {
        this.#drop(old);
        this.#put(o);
      },
      onDelete: (o) => {
        this.#drop(o);
      },
    });
  }

  /** The objects whose index value is `value`. */
  get(value: string): T[] {
    return [...(this.#by.get(value)?.values() ?? [])];
  }

  #put(object: T): void {
    const value = this.#valueOf(object);
    if (value === undefined) return;
    let bucket = this.#by.get(value);
    if (bucket === undefined) {
      bucket = new Map();
      this.#by.set(value, bucket);
    }
    bucket.set(objectKey(object), object);
  }

  #drop(object: T): void {
    const value = this.#valueOf(object);
    if (value === undefined) return;
    const bucket = this.#by.get(value);
    if (bucket === undefined) return;
    bucket.delete(objectKey(object));
    if (bucket.size === 0) this.#by.delete(value);
  }
}

/**
 * Test support for the store: a manual clock, predictable uids, and a store over MemoryStorage
 * with the served kinds registered and the seed namespaces created.
 */
import type { Status } from '../../src/api/meta/v1/status.js';
import { StatusError } from '../../src/api/meta/v1/status-error.js';
import type { Clock } from '../../src/ports/clock.js';
import { silentLogger } from '../../src/ports/logger.js';
import type { Storage } from '../../src/ports/storage.js';
import type { ResourceType } from '../../src/apiserver/resource-type.js';
import { ResourceTypeRegistry } from '../../src/apiserver/resource-types.js';
import { MemoryStorage } from '../../src/storage/memory-storage.js';
import type { ValidatingAdmission } from '../../src/apiserver/store/context.js';
import {
  createResourceStore,
  type ManagedResourceStore,
} from '../../src/apiserver/store/create-resource-store.js';

/** Time that moves only when told; sleepers wake when it passes their deadline. */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: { until: number; resolve: () => void }[] = [];

  constructor(start = Date.parse('2026-11-29T09:15:00Z')) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason as Error);
        return;
      }
      const sleeper = { until: this.#now + ms, resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener(
        'abort',
        () => {
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
  }

  /** Moves time forward and wakes every sleeper whose deadline has passed. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#sleepers.filter((s) => s.until <= this.#now);
    this.#sleepers = this.#sleepers.filter((s) => s.until > this.#now);
    for (const s of due) s.resolve();
  }
}

export interface TestStore {
  readonly store: ManagedResourceStore;
  readonly storage: Storage;
  readonly clock: ManualClock;
  readonly registry: ResourceTypeRegistry;
  /** The registered type of `kind` (first match by kind name). */
  readonly rt: (kind: string) => ResourceType;
}

/** `uid-1`, `uid-2`, ... */
function sequentialUids(): () => string {
  let n = 0;
  return () => `uid-${String(++n)}`;
}

export async function newTestStore(
  storage: Storage = new MemoryStorage(),
  admission?: ValidatingAdmission,
): Promise<TestStore> {
  const clock = new ManualClock();
  const registry = new ResourceTypeRegistry();
  const store = createResourceStore({
    storage,
    clock,
    newUid: sequentialUids(),
    log: silentLogger,
    registry,
    ...(admission === undefined ? {} : { admission }),
  });
  await store.seedNamespaces();
  const rt = (kind: string): ResourceType => {
    const found = registry.list().find((t) => t.kind === kind);
    if (found === undefined) throw new Error(`no type ${kind}`);
    return found;
  };
  return { store, storage, clock, registry, rt };
}

/** WriteOptions of an ordinary admin request. */
export const admin = {
  user: { name: 'admin', groups: ['system:masters'] },
  dryRun: false,
} as const;

/** The Status a failing store call answers with (fails the test if it succeeds). */
export async function failure(call: Promise<unknown>): Promise<Status> {
  try {
    await call;
  } catch (e) {
    if (e instanceof StatusError) return e.toStatus();
    throw e;
  }
  throw new Error('expected the call to fail with a StatusError');
}

/**
 * Where SqliteStorage's commits run. For a file: a worker thread with its own connection, so the
 * event loop never waits for a commit's fsync (with `synchronous=FULL` it is the slowest part of a
 * write, milliseconds on a plain disk): the API server parses, authorizes and admits the next
 * requests meanwhile. For `:memory:` (a private database no second connection can open): the
 * caller's thread, on the storage's own connection.
 *
 * The thread commits with `synchronous=FULL` and answers only after its `COMMIT` returned, so an
 * acknowledged write survives SIGKILL and power loss as before; readers on the storage's connection
 * see a row only once its commit is in the WAL index, which SQLite updates after the sync.
 *
 * The worker runs the source text of `commitThreadMain` and `sqliteCommitter` (an `eval` worker):
 * a worker file would be `.js` in the build but `.ts` under the test runner, which Node 20 cannot
 * load; the functions' own text is JavaScript in both. Requests are answered in order, one at a
 * time; the worker keeps the process alive only while a request waits for its answer.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type * as WorkerThreads from 'node:worker_threads';
import type Database from 'better-sqlite3';
import {
  sqliteCommitter,
  type SqliteCommitter,
  type WriteOutcome,
  type WriteRequest,
} from './sqlite-committer.js';

/** The commits of one SqliteStorage, in the order they are asked for. */
export interface SqliteCommits {
  commit(batch: readonly WriteRequest[]): Promise<WriteOutcome[]>;
  compact(revision: number): Promise<void>;
  /** Closes the commit connection once the requests before it are answered. */
  close(): Promise<void>;
}

type ThreadAsk =
  | { readonly kind: 'commit'; readonly batch: readonly WriteRequest[] }
  | { readonly kind: 'compact'; readonly revision: number }
  | { readonly kind: 'close' };
type ThreadRequest = ThreadAsk & { readonly id: number };

interface ThreadReply {
  readonly id: number;
  readonly outcomes?: WriteOutcome[];
  readonly error?: string;
}

interface ThreadData {
  readonly path: string;
  readonly busyTimeoutMs: number;
  readonly sqlite: string;
}

/** The worker's body. Self-contained, like sqliteCommitter: it runs from its source text. */
function commitThreadMain(
  threads: typeof WorkerThreads,
  Sqlite: typeof Database,
  makeCommitter: typeof sqliteCommitter,
): void {
  const port = threads.parentPort;
  if (port === null) throw new Error('the commit thread runs as a worker');
  const data = threads.workerData as ThreadData;
  let db: Database.Database | undefined;
  let committer: SqliteCommitter | undefined;
  let opening: string | undefined;
  try {
    db = new Sqlite(data.path, { timeout: data.busyTimeoutMs });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    committer = makeCommitter(db);
  } catch (e) {
    opening = `opening the commit connection: ${e instanceof Error ? e.message : String(e)}`;
  }
  port.on('message', (request: ThreadRequest) => {
    const reply = (answer: Omit<ThreadReply, 'id'>): void => {
      port.postMessage({ id: request.id, ...answer });
    };
    if (db === undefined || committer === undefined) {
      reply({ error: opening ?? 'no commit connection' });
      if (request.kind === 'close') port.close();
      return;
    }
    try {
      if (request.kind === 'commit') {
        reply({ outcomes: committer.commit(request.batch) });
      } else if (request.kind === 'compact') {
        committer.compact(request.revision);
        reply({});
      } else {
        db.close();
        reply({});
        port.close();
      }
    } catch (e) {
      reply({ error: e instanceof Error ? e.message : String(e) });
    }
  });
}

const ThreadSource = `(${commitThreadMain.toString()})(
  require('node:worker_threads'),
  require(require('node:worker_threads').workerData.sqlite),
  (${sqliteCommitter.toString()}),
);`;

class CommitThread implements SqliteCommits {
  readonly #worker: Worker;
  readonly #waiting = new Map<
    number,
    { readonly resolve: (reply: ThreadReply) => void; readonly reject: (e: Error) => void }
  >();
  #nextId = 0;
  #failure: Error | undefined;
  #closed = false;

  constructor(path: string, busyTimeoutMs: number) {
    const workerData: ThreadData = {
      path,
      busyTimeoutMs,
      sqlite: createRequire(import.meta.url).resolve('better-sqlite3'),
    };
    this.#worker = new Worker(ThreadSource, { eval: true, workerData });
    this.#worker.unref();
    this.#worker.on('message', (reply: ThreadReply) => {
      const waiter = this.#waiting.get(reply.id);
      this.#waiting.delete(reply.id);
      if (this.#waiting.size === 0) this.#worker.unref();
      waiter?.resolve(reply);
    });
    this.#worker.on('error', (e) => {
      this.#fail(e);
    });
    this.#worker.on('exit', (code) => {
      if (!this.#closed) this.#fail(new Error(`the commit thread exited (code ${String(code)})`));
    });
  }

  async commit(batch: readonly WriteRequest[]): Promise<WriteOutcome[]> {
    const reply = await this.#ask({ kind: 'commit', batch });
    return reply.outcomes ?? [];
  }

  async compact(revision: number): Promise<void> {
    await this.#ask({ kind: 'compact', revision });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#ask({ kind: 'close' });
    } finally {
      this.#closed = true;
      await this.#worker.terminate();
    }
  }

  async #ask(request: ThreadAsk): Promise<ThreadReply> {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#closed) throw new Error('the commit thread is closed');
    const id = ++this.#nextId;
    if (this.#waiting.size === 0) this.#worker.ref();
    const reply = await new Promise<ThreadReply>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id });
    });
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply;
  }

  /** The thread is gone: every waiting request fails, and so does every later one. */
  #fail(e: Error): void {
    this.#failure ??= e;
    for (const waiter of this.#waiting.values()) waiter.reject(e);
    this.#waiting.clear();
    this.#worker.unref();
  }
}

/** Commits on the caller's thread, on the storage's own connection (`:memory:`). */
class CommitsInThread implements SqliteCommits {
  readonly #committer: SqliteCommitter;

  constructor(db: Database.Database) {
    this.#committer = sqliteCommitter(db);
  }

  commit(batch: readonly WriteRequest[]): Promise<WriteOutcome[]> {
    try {
      return Promise.resolve(this.#committer.commit(batch));
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  compact(revision: number): Promise<void> {
    try {
      this.#committer.compact(revision);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The commits of the database at `path`: on a thread of their own when `onDisk`, else on `db`,
 * the storage's connection.
 */
export function openSqliteCommits({
  db,
  path,
  onDisk,
  busyTimeoutMs,
}: {
  readonly db: Database.Database;
  readonly path: string;
  readonly onDisk: boolean;
  readonly busyTimeoutMs: number;
}): SqliteCommits {
  return onDisk ? new CommitThread(path, busyTimeoutMs) : new CommitsInThread(db);
}

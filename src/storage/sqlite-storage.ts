/**
 * SqliteStorage: the Storage port on one SQLite file, modelled on k3s-io/kine.
 *
 * - `kv_log` is an append-only log: every write is a row whose AUTOINCREMENT id is the global
 *   revision (AUTOINCREMENT never reuses an id, even after compaction deleted the newest rows).
 *   `prev_revision` chains a key's rows; `UNIQUE(name, prev_revision)` makes two writers that
 *   read the same state collide instead of both succeeding.
 * - Writes run in `BEGIN IMMEDIATE` with WAL and `synchronous=FULL`: once a write resolves it
 *   survives a crash of the process or the machine. Writes arriving while no commit runs share one
 *   transaction (group commit), and so do all that arrive while one runs, so concurrent writers
 *   share one fsync. For a file, commits run on a thread of their own (sqlite-commit-thread.ts):
 *   the event loop goes on with other requests while a commit syncs; reads stay on this thread.
 * - Watches: this process is the only writer, so events are published from the write path to an
 *   in-memory fan-out; history is replayed from the table (`id > after`) in pages bounded in rows
 *   and bytes, one per turn of the event loop once the watcher took the one before. Live events
 *   are left to the replay until it reads the last row, in the same step as it goes live.
 * - Compaction deletes rows no read at or after the compact revision can need; the compact
 *   revision lives in `kv_meta`.
 * - The database holds Secrets: it is created 0600 before SQLite opens it (SQLite gives the WAL
 *   and shared-memory files the database's mode), and a looser database, WAL or shared-memory file
 *   is tightened to 0600 on open.
 */
import { compareCodePoints } from '../lib/code-point-order.js';
import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import {
  ReplayBatchBytes,
  StorageError,
  StorageErrorCode,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type WatchEvent,
  type WatchHandler,
  type WatchOptions,
} from '../ports/storage.js';
import { openSqliteCommits, type SqliteCommits } from './sqlite-commit-thread.js';
import type { WriteOutcome, WriteRequest } from './sqlite-committer.js';
import { ReplayingWatcher } from './replaying-watcher.js';

export interface SqliteStorageOptions {
  /** Rows read per step when a watch replays history (default 1000). */
  readonly replayPageSize?: number;
  /** How long a write waits for another connection's lock before failing (default 5000). */
  readonly busyTimeoutMs?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT,
  old_value TEXT
);
CREATE INDEX IF NOT EXISTS kv_log_name_id ON kv_log (name, id);
CREATE UNIQUE INDEX IF NOT EXISTS kv_log_name_prev_revision ON kv_log (name, prev_revision);
CREATE TABLE IF NOT EXISTS kv_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
`;

/** A create row stores create_revision 0 and means its own id, as in kine. */
const CREATE_REVISION = 'CASE WHEN created THEN id ELSE create_revision END';
const LOG_COLUMNS = 'id, name, created, deleted, create_revision, prev_revision, value, old_value';

interface LogRow {
  readonly id: number;
  readonly name: string;
  readonly created: number;
  readonly deleted: number;
  readonly create_revision: number;
  readonly prev_revision: number;
  readonly value: string | null;
  readonly old_value: string | null;
}

interface LatestRow {
  readonly id: number;
  readonly deleted: number;
  readonly createRevision: number;
  readonly value: string | null;
}

interface ListRow {
  readonly name: string;
  readonly value: string | null;
  readonly id: number;
  readonly createRevision: number;
}

/** Bounds of a key range: `name >= lo` (or `> lo` after a page), and `name < hi` if given. */
interface Range {
  readonly lo: string;
  readonly exclusive: boolean;
  readonly hi: string | undefined;
}

type Params = Record<string, string | number>;

interface PendingWrite {
  readonly request: WriteRequest;
  readonly resolve: (kv: KeyValue) => void;
  readonly reject: (e: unknown) => void;
}

type Stmt<P extends unknown[] | object, R> = Database.Statement<P, R>;

export class SqliteStorage implements Storage {
  readonly #db: Database.Database;
  readonly #replayPageSize: number;
  readonly #watchers = new Set<ReplayingWatcher>();
  readonly #statements = new Map<string, Stmt<Params, unknown>>();
  #closed = false;
  #closing: Promise<void> | undefined;

  readonly #latest: Stmt<[string], LatestRow>;
  readonly #revision: Stmt<[], { seq: number }>;
  readonly #compacted: Stmt<[], { value: number }>;
  readonly #commits: SqliteCommits;
  /** Writes waiting for the next group commit. */
  #pending: PendingWrite[] = [];
  #flushScheduled = false;
  /** A commit is running: writes arriving meanwhile wait for it and go in the next one together. */
  #committing = false;
  /** Called once no commit runs and none waits (close waits for that). */
  #idle: (() => void)[] = [];
  /** A read transaction gives one snapshot even if another connection writes meanwhile. */
  readonly #listTx: (prefix: string, options: ListOptions) => ListResult;
  /** One replay page and the head it goes live at, read in one snapshot (see #replayPage). */
  readonly #replayTx: (w: ReplayingWatcher) => boolean;

  /** Opens (creating if needed) the database at `path`; ':memory:' gives a private one. */
  constructor(path: string, options: SqliteStorageOptions = {}) {
    this.#replayPageSize = Math.max(1, options.replayPageSize ?? 1000);
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    const db = openDatabase(path, busyTimeoutMs);
    this.#db = db;
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      if (isOnDisk(path)) tightenDatabaseFiles(path);
      db.exec(SCHEMA);
      this.#latest = db.prepare(
        `SELECT id, deleted, ${CREATE_REVISION} AS createRevision, value FROM kv_log
         WHERE name = ? ORDER BY id DESC LIMIT 1`,
      );
      this.#revision = db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'kv_log'`);
      this.#compacted = db.prepare(`SELECT value FROM kv_meta WHERE name = 'compact_revision'`);
      this.#commits = openSqliteCommits({ db, path, onDisk: isOnDisk(path), busyTimeoutMs });
    } catch (cause) {
      db.close();
      throw new StorageError(StorageErrorCode.Unavailable, `opening sqlite storage ${path}`, {
        cause,
      });
    }
    this.#listTx = db.transaction((prefix: string, options: ListOptions) =>
      this.#listRows(prefix, options),
    );
    this.#replayTx = db.transaction((w: ReplayingWatcher) => this.#replayRows(w));
  }

  /** Opens the database at `path` (or ':memory:'); rejects with Unavailable if it cannot. */
  static open(path: string, options: SqliteStorageOptions = {}): Promise<SqliteStorage> {
    try {
      return Promise.resolve(new SqliteStorage(path, options));
    } catch (e) {
      return Promise.reject(asError(e));
    }
  }

  currentRevision(): Promise<number> {
    return this.#run('revision', () => this.#readRevision());
  }

  compactedRevision(): Promise<number> {
    return this.#run('compacted revision', () => this.#readCompacted());
  }

  get(key: string): Promise<KeyValue | undefined> {
    return this.#run(`get ${key}`, () => {
      const row = this.#latest.get(key);
      if (row === undefined || row.deleted !== 0) return undefined;
      return toKeyValue(key, row.value, row.createRevision, row.id);
    });
  }

  list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    return this.#run(`list ${prefix}`, () => this.#listTx(prefix, options));
  }

  count(prefix: string): Promise<number> {
    return this.#run(`count ${prefix}`, () => {
      const range = listRange(prefix, undefined);
      const row = this.#statement('count', range).get(rangeParams(range)) as { n: number };
      return row.n;
    });
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.#write({ op: 'create', key, value });
  }

  update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    return this.#write({ op: 'update', key, value, expected: expectedRevision });
  }

  delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    return this.#write({
      op: 'delete',
      key,
      value: null,
      ...(expectedRevision === undefined ? {} : { expected: expectedRevision }),
    });
  }

  async watch(prefix: string, options: WatchOptions, handler: WatchHandler): Promise<void> {
    const watcher = await this.#run(`watch ${prefix}`, () => {
      const { afterRevision, signal } = options;
      const compacted = this.#readCompacted();
      if (afterRevision > 0 && afterRevision < compacted) throw compactedError(compacted);
      if (signal.aborted) return undefined;
      const head = this.#readRevision();
      // 0 means "from now"; a revision at or past the head has nothing to replay either.
      const after = afterRevision > 0 ? afterRevision : head;
      const w = new ReplayingWatcher({
        prefix,
        after,
        handler,
        signal,
        onEnd: (x) => this.#watchers.delete(x),
      });
      // Registered before the replay reads the table, so no live event can fall into a gap.
      this.#watchers.add(w);
      if (after >= head) w.goLive(head);
      else if (!this.#replayPage(w)) return w;
      return undefined;
    });
    if (watcher !== undefined) void this.#replayRest(watcher);
  }

  /** A watch still replaying below the new point notices before its next page (#replayPage). */
  async compact(revision: number): Promise<void> {
    if (this.#closed) throw new StorageError(StorageErrorCode.Unavailable, 'storage closed');
    try {
      await this.#commits.compact(revision);
    } catch (cause) {
      throw new StorageError(StorageErrorCode.Unavailable, `sqlite storage: compact ${revision}`, {
        cause,
      });
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    // Calls from now on are refused; writes already accepted are committed, not dropped.
    this.#closed = true;
    while (this.#committing || this.#pending.length > 0) {
      const idle = new Promise<void>((resolve) => this.#idle.push(resolve));
      this.#flush();
      await idle;
    }
    const closed = new StorageError(StorageErrorCode.Unavailable, 'storage closed');
    for (const w of this.#watchers) w.fail(closed);
    this.#watchers.clear();
    try {
      await this.#commits.close();
    } finally {
      this.#db.close();
    }
  }

  #listRows(prefix: string, options: ListOptions): ListResult {
    const revision = this.#readRevisionAt(options.revision);
    const limit = options.limit ?? 0;
    const range = listRange(prefix, options.startAfter);
    const rows = this.#statement('list', range).all({
      ...rangeParams(range),
      rev: revision,
      limit: limit > 0 ? limit + 1 : -1,
    }) as ListRow[];
    const more = limit > 0 && rows.length > limit;
    const items = (more ? rows.slice(0, limit) : rows).map((r) =>
      toKeyValue(r.name, r.value, r.createRevision, r.id),
    );
    return { items, revision, more };
  }

  /**
   * Queues a write for the next group commit. Writes that arrive in the same turn of the event
   * loop (e.g. concurrent API requests), or while a commit runs, share one BEGIN IMMEDIATE ...
   * COMMIT and so one fsync; each still runs its own CAS check, in arrival order, and resolves
   * only once committed.
   */
  #write(request: WriteRequest): Promise<KeyValue> {
    if (this.#closed) {
      return Promise.reject(new StorageError(StorageErrorCode.Unavailable, 'storage closed'));
    }
    return new Promise((resolve, reject) => {
      this.#pending.push({ request, resolve, reject });
      if (!this.#flushScheduled && !this.#committing) {
        this.#flushScheduled = true;
        setImmediate(this.#flush);
      }
    });
  }

  /** Commits the queued writes unless a commit runs (its end commits them), then settles them. */
  readonly #flush = (): void => {
    this.#flushScheduled = false;
    if (this.#committing) return;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) {
      for (const resolve of this.#idle.splice(0)) resolve();
      return;
    }
    this.#committing = true;
    this.#commits
      .commit(batch.map((w) => w.request))
      .then(
        (outcomes) => {
          this.#settle(batch, outcomes);
        },
        (cause: unknown) => {
          // Nothing of the batch was written (the transaction rolled back).
          const error = new StorageError(StorageErrorCode.Unavailable, 'sqlite storage: commit', {
            cause,
          });
          for (const w of batch) w.reject(error);
        },
      )
      .finally(() => {
        this.#committing = false;
        this.#flush();
      })
      .catch(() => undefined);
  };

  /** Settles a committed batch and publishes its events, in order. */
  #settle(batch: readonly PendingWrite[], outcomes: readonly WriteOutcome[]): void {
    for (const [i, w] of batch.entries()) {
      const outcome = outcomes[i];
      if (outcome === undefined) {
        w.reject(new StorageError(StorageErrorCode.Unavailable, 'sqlite storage: no outcome'));
      } else if (!outcome.ok) {
        const { code, message, key, revision } = outcome;
        w.reject(
          new StorageError(code, message, { key, ...(revision === undefined ? {} : { revision }) }),
        );
      } else {
        const { event } = outcome;
        for (const watcher of this.#watchers) watcher.push(event);
        w.resolve(event.type === 'put' ? event.kv : event.prev);
      }
    }
  }

  /**
   * Replays one page of history into the watcher (at most `replayPageSize` rows and about
   * `ReplayBatchBytes`); returns true once it has caught up (and gone live, in the same step, so
   * no write can fall between) or ended.
   */
  #replayPage(w: ReplayingWatcher): boolean {
    return w.ended || this.#replayTx(w);
  }

  /**
   * The rows of #replayPage. They and the head it goes live at come from one read transaction:
   * the commit thread may commit between two statements, and a row committed after the page's
   * read but at or below the head would be in neither the replay nor the live events.
   */
  #replayRows(w: ReplayingWatcher): boolean {
    const compacted = this.#readCompacted();
    // Compaction overtook the replay: rows after the cursor may be gone, so events would be lost.
    if (w.cursor < compacted) {
      w.fail(compactedError(compacted));
      return true;
    }
    const range = listRange(w.prefix, undefined);
    const rows = this.#statement('replay', range).iterate({
      ...rangeParams(range),
      after: w.cursor,
      limit: this.#replayPageSize,
    }) as IterableIterator<LogRow>;
    let read = 0;
    let bytes = 0;
    for (const row of rows) {
      w.replay(toEvent(row));
      read += 1;
      bytes += row.name.length + (row.value?.length ?? 0) + (row.old_value?.length ?? 0);
      // leaving the loop ends the statement
      if (bytes >= ReplayBatchBytes) return false;
    }
    if (read < this.#replayPageSize) {
      w.goLive(this.#readRevision());
      return true;
    }
    return false;
  }

  /** The rest of a long replay, a page at a time, each once the watcher took the one before. */
  async #replayRest(w: ReplayingWatcher): Promise<void> {
    try {
      do {
        await w.paced();
        if (this.#closed) return;
      } while (!this.#replayPage(w));
    } catch (cause) {
      w.fail(
        new StorageError(StorageErrorCode.Unavailable, `watch ${w.prefix}: replay`, { cause }),
      );
    }
  }

  #readRevision(): number {
    return this.#revision.get()?.seq ?? 0;
  }

  #readCompacted(): number {
    return this.#compacted.get()?.value ?? 0;
  }

  /** The revision a list is answered at: absent or 0 is the head; compacted ones are refused. */
  #readRevisionAt(requested: number | undefined): number {
    const head = this.#readRevision();
    if (requested === undefined || requested <= 0 || requested >= head) return head;
    const compacted = this.#readCompacted();
    if (requested < compacted) throw compactedError(compacted);
    return requested;
  }

  /** Prepared once per query shape (range bounds differ), then reused. */
  #statement(kind: 'list' | 'count' | 'replay', range: Range): Stmt<Params, unknown> {
    const op = range.exclusive ? '>' : '>=';
    const id = `${kind} ${op} ${range.hi === undefined ? '' : '<'}`;
    let stmt = this.#statements.get(id);
    if (stmt === undefined) {
      stmt = this.#db.prepare(buildSql(kind, op, range.hi !== undefined));
      this.#statements.set(id, stmt);
    }
    return stmt;
  }

  /** Runs a synchronous step as the async port demands; storage failures become Unavailable. */
  #run<T>(what: string, step: () => T): Promise<T> {
    try {
      if (this.#closed) throw new StorageError(StorageErrorCode.Unavailable, 'storage closed');
      return Promise.resolve(step());
    } catch (e) {
      if (e instanceof StorageError) return Promise.reject(e);
      return Promise.reject(
        new StorageError(StorageErrorCode.Unavailable, `sqlite storage: ${what}`, { cause: e }),
      );
    }
  }
}

/** The database's own files: SQLite opens `-wal` and `-shm` beside it in WAL mode. */
const databaseFiles = (path: string): string[] => [path, `${path}-wal`, `${path}-shm`];

function isOnDisk(path: string): boolean {
  return path !== '' && path !== ':memory:' && !path.startsWith('file:');
}

/** Group and other lose every permission on the files that exist. */
function tightenDatabaseFiles(path: string): void {
  for (const file of databaseFiles(path)) {
    let mode: number;
    try {
      mode = statSync(file).mode & 0o7777;
    } catch {
      continue; // not there (yet): SQLite creates it with the database's mode
    }
    if ((mode & 0o077) !== 0) chmodSync(file, mode & 0o700);
  }
}

function openDatabase(path: string, busyTimeoutMs: number): Database.Database {
  try {
    // created owner-only before SQLite sees it, so no moment exists where others could open it
    if (isOnDisk(path)) closeSync(openSync(path, 'a', 0o600));
    return new Database(path, { timeout: busyTimeoutMs });
  } catch (cause) {
    throw new StorageError(StorageErrorCode.Unavailable, `opening sqlite storage ${path}`, {
      cause,
    });
  }
}

function buildSql(kind: 'list' | 'count' | 'replay', op: '>' | '>=', bounded: boolean): string {
  const range = (col: string): string => `${col} ${op} @lo` + (bounded ? ` AND ${col} < @hi` : '');
  switch (kind) {
    case 'replay':
      // `+name` keeps the name index out: with it SQLite sorts every row of the prefix (values
      // and all) by id for each page; in id order the scan stops after the page's rows
      return `SELECT ${LOG_COLUMNS} FROM kv_log WHERE id > @after AND ${range('+name')}
              ORDER BY id LIMIT @limit`;
    case 'count':
      // The newest row of a key is the one no row names as its predecessor.
      return `SELECT COUNT(*) AS n FROM kv_log AS k WHERE ${range('k.name')} AND k.deleted = 0
              AND NOT EXISTS (SELECT 1 FROM kv_log AS n WHERE n.name = k.name AND n.prev_revision = k.id)`;
    case 'list':
      return `SELECT k.name AS name, k.value AS value, k.id AS id,
                CASE WHEN k.created THEN k.id ELSE k.create_revision END AS createRevision
              FROM kv_log AS k WHERE ${range('k.name')} AND k.id <= @rev AND k.deleted = 0
              AND NOT EXISTS (SELECT 1 FROM kv_log AS n WHERE n.name = k.name
                AND n.prev_revision = k.id AND n.id <= @rev)
              ORDER BY k.name LIMIT @limit`;
  }
}

/** The key range of a prefix, starting strictly after `startAfter` when that lies inside it. */
function listRange(prefix: string, startAfter: string | undefined): Range {
  const hi = prefixEnd(prefix);
  if (startAfter !== undefined && compareCodePoints(startAfter, prefix) >= 0) {
    return { lo: startAfter, exclusive: true, hi };
  }
  return { lo: prefix, exclusive: false, hi };
}

function rangeParams(range: Range): Params {
  return range.hi === undefined ? { lo: range.lo } : { lo: range.lo, hi: range.hi };
}

/**
 * The smallest string above every string with the prefix (undefined: no bound): the prefix with
 * its last code point incremented. SQLite compares TEXT as UTF-8 bytes, i.e. by code point.
 */
function prefixEnd(prefix: string): string | undefined {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()?.codePointAt(0) ?? 0x10ffff;
    if (last < 0x10ffff) {
      points.push(String.fromCodePoint(last + 1 === 0xd800 ? 0xe000 : last + 1));
      return points.join('');
    }
  }
  return undefined;
}

function toKeyValue(
  key: string,
  value: string | null,
  createRevision: number,
  modRevision: number,
): KeyValue {
  return { key, value: value ?? '', createRevision, modRevision };
}

function toEvent(row: LogRow): WatchEvent {
  if (row.created !== 0) {
    return { type: 'put', kv: toKeyValue(row.name, row.value, row.id, row.id), prev: undefined };
  }
  const prev = toKeyValue(row.name, row.old_value, row.create_revision, row.prev_revision);
  if (row.deleted !== 0) return { type: 'delete', key: row.name, revision: row.id, prev };
  return { type: 'put', kv: toKeyValue(row.name, row.value, row.create_revision, row.id), prev };
}

function compactedError(compacted: number): StorageError {
  return new StorageError(
    StorageErrorCode.Compacted,
    `required revision has been compacted; oldest available is ${compacted}`,
    { revision: compacted },
  );
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

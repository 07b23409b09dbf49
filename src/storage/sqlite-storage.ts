/**
 * SqliteStorage: the Storage port on one SQLite file, modelled on k3s-io/kine.
 *
 * - `kv_log` is an append-only log: every write is a row whose AUTOINCREMENT id is the global
 *   revision (AUTOINCREMENT never reuses an id, even after compaction deleted the newest rows).
 *   `prev_revision` chains a key's rows; `UNIQUE(name, prev_revision)` makes two writers that
 *   read the same state collide instead of both succeeding.
 * - Writes run in `BEGIN IMMEDIATE` with WAL and `synchronous=FULL`: once a write resolves it
 *   survives a crash of the process or the machine. Writes arriving in the same event-loop turn
 *   share one transaction (group commit), so concurrent writers share one fsync.
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
import { eventKey, eventRevision, WatchDelivery } from './watch-delivery.js';

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
type WriteOp = 'create' | 'update' | 'delete';

interface PendingWrite {
  readonly op: WriteOp;
  readonly key: string;
  readonly apply: () => WatchEvent;
  readonly resolve: (kv: KeyValue) => void;
  readonly reject: (e: unknown) => void;
}
/** A row to append: a create stores createRevision 0 (it means its own id) and no oldValue. */
interface NewRow {
  readonly key: string;
  readonly created: 0 | 1;
  readonly deleted: 0 | 1;
  readonly createRevision?: number;
  /** The revision of the key's previous row (0 for none): what UNIQUE(name, prev_revision) guards. */
  readonly prev: number;
  readonly value: string | null;
  readonly oldValue?: string | null;
}

type Stmt<P extends unknown[] | object, R> = Database.Statement<P, R>;
type Tx<F extends (...args: never[]) => unknown> = Database.Transaction<F>;

export class SqliteStorage implements Storage {
  readonly #db: Database.Database;
  readonly #replayPageSize: number;
  readonly #watchers = new Set<SqliteWatcher>();
  readonly #statements = new Map<string, Stmt<Params, unknown>>();
  #closed = false;

  readonly #latest: Stmt<[string], LatestRow>;
  readonly #insert: Stmt<
    [string, number, number, number, number, string | null, string | null],
    never
  >;
  readonly #revision: Stmt<[], { seq: number }>;
  readonly #compacted: Stmt<[], { value: number }>;
  readonly #setCompacted: Stmt<[number], never>;
  readonly #prune: Stmt<{ rev: number }, never>;
  /** Writes waiting for the next group commit. */
  #pending: PendingWrite[] = [];
  #flushScheduled = false;
  readonly #commitTx: Tx<(batch: readonly PendingWrite[]) => (WatchEvent | StorageError)[]>;
  readonly #compactTx: Tx<(revision: number) => void>;
  /** A read transaction gives one snapshot even if another connection writes meanwhile. */
  readonly #listTx: (prefix: string, options: ListOptions) => ListResult;

  /** Opens (creating if needed) the database at `path`; ':memory:' gives a private one. */
  constructor(path: string, options: SqliteStorageOptions = {}) {
    this.#replayPageSize = Math.max(1, options.replayPageSize ?? 1000);
    const db = openDatabase(path, options.busyTimeoutMs ?? 5000);
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
      this.#insert = db.prepare(
        `INSERT INTO kv_log (name, created, deleted, create_revision, prev_revision, value, old_value)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      );
      this.#revision = db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'kv_log'`);
      this.#compacted = db.prepare(`SELECT value FROM kv_meta WHERE name = 'compact_revision'`);
      this.#setCompacted = db.prepare(
        `INSERT INTO kv_meta (name, value) VALUES ('compact_revision', ?)
         ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      );
      // A row at or below the compact revision is needed only as the newest state of its key
      // there: superseded rows and tombstones go. Newer rows carry old_value for their events.
      this.#prune = db.prepare(
        `DELETE FROM kv_log WHERE id <= @rev AND (deleted = 1 OR EXISTS (
           SELECT 1 FROM kv_log AS n WHERE n.name = kv_log.name AND n.prev_revision = kv_log.id
           AND n.id <= @rev))`,
      );
    } catch (cause) {
      db.close();
      throw new StorageError(StorageErrorCode.Unavailable, `opening sqlite storage ${path}`, {
        cause,
      });
    }
    this.#commitTx = db.transaction((batch: readonly PendingWrite[]) =>
      batch.map((w) => this.#applyOne(w)),
    );
    this.#listTx = db.transaction((prefix: string, options: ListOptions) =>
      this.#listRows(prefix, options),
    );
    this.#compactTx = db.transaction((revision: number) => {
      this.#prune.run({ rev: revision });
      this.#setCompacted.run(revision);
    });
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
    return this.#write('create', key, () => this.#createRow(key, value));
  }

  update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    return this.#write('update', key, () =>
      this.#changeRow('update', key, expectedRevision, value),
    );
  }

  delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    return this.#write('delete', key, () => this.#changeRow('delete', key, expectedRevision, null));
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
      const w = new SqliteWatcher({
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

  compact(revision: number): Promise<void> {
    return this.#run(`compact ${revision}`, () => {
      // Compacting past the head would make the next watch from "now" fail; stop at the head.
      const target = Math.min(revision, this.#readRevision());
      if (target <= this.#readCompacted()) return;
      // A watch still replaying below the target notices before its next page (#replayPage).
      this.#compactTx.immediate(target);
    });
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    // Writes already accepted are committed, not dropped.
    this.#flush();
    this.#closed = true;
    const closed = new StorageError(StorageErrorCode.Unavailable, 'storage closed');
    for (const w of this.#watchers) w.fail(closed);
    this.#watchers.clear();
    this.#db.close();
    return Promise.resolve();
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

  #createRow(key: string, value: string): WatchEvent {
    const latest = this.#latest.get(key);
    if (latest !== undefined && latest.deleted === 0) {
      throw new StorageError(StorageErrorCode.KeyExists, `create ${key}: key exists`, {
        key,
        revision: latest.id,
      });
    }
    const id = this.#append({ key, created: 1, deleted: 0, prev: latest?.id ?? 0, value });
    return { type: 'put', kv: toKeyValue(key, value, id, id), prev: undefined };
  }

  /** The CAS check (one indexed read) and the insert of an update or a tombstone. */
  #changeRow(
    op: 'update' | 'delete',
    key: string,
    expected: number | undefined,
    value: string | null,
  ): WatchEvent {
    const latest = this.#latest.get(key);
    if (latest === undefined || latest.deleted !== 0) {
      throw new StorageError(StorageErrorCode.KeyNotFound, `${op} ${key}: key not found`, { key });
    }
    if (expected !== undefined && latest.id !== expected) {
      throw conflict(op, key, expected, latest.id);
    }
    const prev = toKeyValue(key, latest.value, latest.createRevision, latest.id);
    const id = this.#append({
      key,
      created: 0,
      deleted: value === null ? 1 : 0,
      createRevision: prev.createRevision,
      prev: prev.modRevision,
      value,
      oldValue: prev.value,
    });
    if (value === null) return { type: 'delete', key, revision: id, prev };
    return { type: 'put', kv: toKeyValue(key, value, prev.createRevision, id), prev };
  }

  /** Appends one row; its id is the write's revision. */
  #append(row: NewRow): number {
    const info = this.#insert.run(
      row.key,
      row.created,
      row.deleted,
      row.createRevision ?? 0,
      row.prev,
      row.value,
      row.oldValue ?? null,
    );
    return Number(info.lastInsertRowid);
  }

  /**
   * Queues a write for the next group commit. Writes that arrive in the same turn of the event
   * loop (e.g. concurrent API requests) share one BEGIN IMMEDIATE ... COMMIT and so one fsync;
   * each still runs its own CAS check, in arrival order, and resolves only once committed.
   */
  #write(op: WriteOp, key: string, apply: () => WatchEvent): Promise<KeyValue> {
    if (this.#closed) {
      return Promise.reject(new StorageError(StorageErrorCode.Unavailable, 'storage closed'));
    }
    return new Promise((resolve, reject) => {
      this.#pending.push({ op, key, apply, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(this.#flush);
      }
    });
  }

  /** Commits the queued writes, then settles them and publishes their events, in order. */
  readonly #flush = (): void => {
    this.#flushScheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    let results: (WatchEvent | StorageError)[];
    try {
      results = this.#commitTx.immediate(batch);
    } catch (cause) {
      // Nothing of the batch was written (the transaction rolled back).
      const error = new StorageError(StorageErrorCode.Unavailable, 'sqlite storage: commit', {
        cause,
      });
      for (const w of batch) w.reject(error);
      return;
    }
    for (const [i, w] of batch.entries()) {
      const result = results[i];
      if (result === undefined || result instanceof StorageError) {
        w.reject(result ?? new Error('unreachable: missing write result'));
        continue;
      }
      for (const watcher of this.#watchers) watcher.publish(result);
      w.resolve(result.type === 'put' ? result.kv : result.prev);
    }
  };

  /**
   * One write inside the group transaction. Its expected failures are values, so the others in
   * the batch go on; a failed INSERT is undone by SQLite on its own (statement atomicity).
   */
  #applyOne(w: PendingWrite): WatchEvent | StorageError {
    try {
      return w.apply();
    } catch (e) {
      if (e instanceof StorageError) return e;
      const translated = this.#translateWriteError(w.op, w.key, e);
      if (translated instanceof StorageError) return translated;
      throw e;
    }
  }

  /** Another connection won the race on UNIQUE(name, prev_revision): report it as etcd would. */
  #translateWriteError(op: WriteOp, key: string, e: unknown): unknown {
    if (!(e instanceof Database.SqliteError) || !e.code.startsWith('SQLITE_CONSTRAINT')) return e;
    const latest = this.#latest.get(key);
    if (op === 'create') {
      return new StorageError(StorageErrorCode.KeyExists, `create ${key}: key exists`, {
        key,
        cause: e,
        ...(latest === undefined ? {} : { revision: latest.id }),
      });
    }
    if (latest === undefined || latest.deleted !== 0) {
      return new StorageError(StorageErrorCode.KeyNotFound, `${op} ${key}: key not found`, {
        key,
        cause: e,
      });
    }
    return new StorageError(StorageErrorCode.Conflict, `${op} ${key}: concurrent write`, {
      key,
      revision: latest.id,
      cause: e,
    });
  }

  /**
   * Replays one page of history into the watcher (at most `replayPageSize` rows and about
   * `ReplayBatchBytes`); returns true once it has caught up (and gone live, in the same step, so
   * no write can fall between) or ended.
   */
  #replayPage(w: SqliteWatcher): boolean {
    if (w.ended) return true;
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
  async #replayRest(w: SqliteWatcher): Promise<void> {
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
  if (startAfter !== undefined && compareKeys(startAfter, prefix) >= 0) {
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

/** Code point order (UTF-8 byte order), the order SQLite's BINARY collation gives. */
function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) return codePointRank(ca) - codePointRank(cb);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
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

function conflict(op: string, key: string, expected: number, actual: number): StorageError {
  return new StorageError(
    StorageErrorCode.Conflict,
    `${op} ${key}: expected revision ${expected}, found ${actual}`,
    { key, revision: actual },
  );
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

/**
 * One watch. While it replays, live events are left to the replay: they are rows of the table it
 * reads, and it goes live in the step that reads the last of them. Delivery runs after the write settles,
 * never inside a write.
 */
class SqliteWatcher {
  readonly prefix: string;
  readonly #delivery: WatchDelivery;
  /** The highest revision read or queued; the replay continues after it. */
  #cursor: number;
  #live = false;

  constructor({
    prefix,
    after,
    handler,
    signal,
    onEnd,
  }: {
    readonly prefix: string;
    readonly after: number;
    readonly handler: WatchHandler;
    readonly signal: AbortSignal;
    readonly onEnd: (w: SqliteWatcher) => void;
  }) {
    this.prefix = prefix;
    this.#cursor = after;
    this.#delivery = new WatchDelivery(handler, signal, () => {
      onEnd(this);
    });
  }

  get cursor(): number {
    return this.#cursor;
  }

  get ended(): boolean {
    return this.#delivery.ended;
  }

  /** A live event from the write path. */
  publish(event: WatchEvent): void {
    if (!this.#live || this.ended || !eventKey(event).startsWith(this.prefix)) return;
    this.#enqueue(event);
  }

  /** An event read from the table, in revision order. */
  replay(event: WatchEvent): void {
    if (!this.ended) this.#enqueue(event);
  }

  /** The table is read up to `head`: from now on events come from the write path. */
  goLive(head: number): void {
    this.#cursor = Math.max(this.#cursor, head);
    this.#live = true;
  }

  paced(): Promise<void> {
    return this.#delivery.paced();
  }

  /** Ends the watch: queued events are dropped and `onError` is the last call. */
  fail(error: StorageError): void {
    this.#delivery.fail(error);
  }

  #enqueue(event: WatchEvent): void {
    const revision = eventRevision(event);
    if (revision <= this.#cursor) return;
    this.#cursor = revision;
    this.#delivery.deliver(event);
  }
}

/**
 * The write half of SqliteStorage: the CAS check and the append of each write, a batch of writes in
 * one `BEGIN IMMEDIATE … COMMIT` (one fsync for the whole batch), and compaction. It runs on the
 * connection it is given: on the commit thread's own connection for a file, on the storage's
 * connection for `:memory:` (a private in-memory database has no second connection).
 *
 * `sqliteCommitter` must stay self-contained (no reference to anything outside its body but its
 * parameter and types): the commit thread runs its source text (`Function.prototype.toString`),
 * which is how the same code runs in a worker from the compiled build and from the TypeScript
 * sources under the test runner. Requests and outcomes are plain data, so they cross threads by
 * structured clone; a failed write is an outcome, not an exception, so the rest of its batch goes on.
 */
import type Database from 'better-sqlite3';
import type { StorageErrorCode, WatchEvent } from '../ports/storage.js';

/** One write: create (no expected revision), update (value and expected), delete (value null). */
export interface WriteRequest {
  readonly op: 'create' | 'update' | 'delete';
  readonly key: string;
  readonly value: string | null;
  /** The CAS precondition: the key's modRevision must equal it (absent: any). */
  readonly expected?: number;
}

/** What became of a write: its event, or the StorageError's fields. */
export type WriteOutcome =
  | { readonly ok: true; readonly event: WatchEvent }
  | {
      readonly ok: false;
      readonly code: StorageErrorCode;
      readonly message: string;
      readonly key: string;
      readonly revision?: number;
    };

export interface SqliteCommitter {
  /**
   * Applies the batch in one immediate transaction and returns one outcome per write, in order.
   * Throws (and writes nothing) only when the transaction itself fails.
   */
  commit(batch: readonly WriteRequest[]): WriteOutcome[];
  /** Compacts at `revision`, clamped to the head; a target at or below the current point is a no-op. */
  compact(revision: number): void;
}

interface LatestRow {
  readonly id: number;
  readonly deleted: number;
  readonly createRevision: number;
  readonly value: string | null;
}

/** The committer on `db` (its statements prepared once). Self-contained: see the header. */
export function sqliteCommitter(db: Database.Database): SqliteCommitter {
  const latest = db.prepare<[string], LatestRow>(
    `SELECT id, deleted, CASE WHEN created THEN id ELSE create_revision END AS createRevision,
       value FROM kv_log WHERE name = ? ORDER BY id DESC LIMIT 1`,
  );
  const insert = db.prepare<
    [string, number, number, number, number, string | null, string | null],
    never
  >(
    `INSERT INTO kv_log (name, created, deleted, create_revision, prev_revision, value, old_value)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const head = db.prepare<[], { seq: number }>(
    `SELECT seq FROM sqlite_sequence WHERE name = 'kv_log'`,
  );
  const compacted = db.prepare<[], { value: number }>(
    `SELECT value FROM kv_meta WHERE name = 'compact_revision'`,
  );
  const setCompacted = db.prepare<[number], never>(
    `INSERT INTO kv_meta (name, value) VALUES ('compact_revision', ?)
     ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
  );
  // A row at or below the compact revision is needed only as the newest state of its key there:
  // superseded rows and tombstones go. Newer rows carry old_value for their events.
  const prune = db.prepare<{ rev: number }, never>(
    `DELETE FROM kv_log WHERE id <= @rev AND (deleted = 1 OR EXISTS (
       SELECT 1 FROM kv_log AS n WHERE n.name = kv_log.name AND n.prev_revision = kv_log.id
       AND n.id <= @rev))`,
  );

  const failure = (
    code: StorageErrorCode,
    message: string,
    key: string,
    revision?: number,
  ): WriteOutcome =>
    revision === undefined
      ? { ok: false, code, message, key }
      : { ok: false, code, message, key, revision };

  const notFound = (w: WriteRequest): WriteOutcome =>
    failure('KeyNotFound', `${w.op} ${w.key}: key not found`, w.key);

  /** Appends one row; its id is the write's revision. */
  const append = (
    w: WriteRequest,
    row: { created: 0 | 1; createRevision: number; prev: number; oldValue: string | null },
  ): number =>
    Number(
      insert.run(
        w.key,
        row.created,
        w.value === null ? 1 : 0,
        row.createRevision,
        row.prev,
        w.value,
        row.oldValue,
      ).lastInsertRowid,
    );

  const apply = (w: WriteRequest): WriteOutcome => {
    const current = latest.get(w.key);
    const exists = current !== undefined && current.deleted === 0;
    if (w.op === 'create') {
      if (exists) return failure('KeyExists', `create ${w.key}: key exists`, w.key, current.id);
      const value = w.value ?? '';
      // a create row stores create_revision 0: it means its own id, as in kine
      const id = append(w, {
        created: 1,
        createRevision: 0,
        prev: current?.id ?? 0,
        oldValue: null,
      });
      const kv = { key: w.key, value, createRevision: id, modRevision: id };
      return { ok: true, event: { type: 'put', kv, prev: undefined } };
    }
    if (!exists) return notFound(w);
    if (w.expected !== undefined && current.id !== w.expected) {
      const message = `${w.op} ${w.key}: expected revision ${String(w.expected)}, found ${String(current.id)}`;
      return failure('Conflict', message, w.key, current.id);
    }
    const prev = {
      key: w.key,
      value: current.value ?? '',
      createRevision: current.createRevision,
      modRevision: current.id,
    };
    const id = append(w, {
      created: 0,
      createRevision: prev.createRevision,
      prev: prev.modRevision,
      oldValue: current.value,
    });
    if (w.value === null)
      return { ok: true, event: { type: 'delete', key: w.key, revision: id, prev } };
    const kv = { key: w.key, value: w.value, createRevision: prev.createRevision, modRevision: id };
    return { ok: true, event: { type: 'put', kv, prev } };
  };

  /** Another connection won the race on UNIQUE(name, prev_revision): reported as etcd would. */
  const raced = (w: WriteRequest): WriteOutcome => {
    const current = latest.get(w.key);
    if (w.op === 'create')
      return failure('KeyExists', `create ${w.key}: key exists`, w.key, current?.id);
    if (current === undefined || current.deleted !== 0) return notFound(w);
    return failure('Conflict', `${w.op} ${w.key}: concurrent write`, w.key, current.id);
  };

  // expected failures are outcomes; a failed INSERT is undone by SQLite on its own (statement
  // atomicity), so the others in the batch go on
  const applyOne = (w: WriteRequest): WriteOutcome => {
    try {
      return apply(w);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT')) return raced(w);
      throw e;
    }
  };

  const commitTx = db.transaction((batch: readonly WriteRequest[]) => batch.map(applyOne));
  const compactTx = db.transaction((revision: number) => {
    // compacting past the head would make the next watch from "now" fail: stop at the head
    const target = Math.min(revision, head.get()?.seq ?? 0);
    if (target <= (compacted.get()?.value ?? 0)) return;
    prune.run({ rev: target });
    setCompacted.run(target);
  });
  return {
    commit: (batch) => commitTx.immediate(batch),
    compact: (revision) => {
      compactTx.immediate(revision);
    },
  };
}

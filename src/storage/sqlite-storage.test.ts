/**
 * SqliteStorage: the shared Storage contract (in memory, with tiny replay pages, and on a file),
 * plus what only a file gives: the schema, restarts, and acknowledged writes surviving SIGKILL.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type KeyValue,
  type WatchEvent,
  StorageError,
  StorageErrorCode,
} from '../ports/storage.js';
import { describeStorageContract } from '../../test/support/storage-contract.js';
import { SqliteStorage } from './sqlite-storage.js';

const dir = mkdtempSync(join(tmpdir(), 'mco-sqlite-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
let files = 0;
const freshFile = (): string => join(dir, `db-${++files}.sqlite`);

describeStorageContract('SqliteStorage(:memory:)', () => SqliteStorage.open(':memory:'));
describeStorageContract('SqliteStorage(:memory:, replay pages of 3)', () =>
  SqliteStorage.open(':memory:', { replayPageSize: 3 }),
);
describeStorageContract('SqliteStorage(file)', () => SqliteStorage.open(freshFile()));

/** Reads the table as it is on disk, through a second connection. */
function rawRows(file: string): { id: number; name: string; deleted: number }[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT id, name, deleted FROM kv_log ORDER BY id').all() as {
      id: number;
      name: string;
      deleted: number;
    }[];
  } finally {
    db.close();
  }
}

describe('SqliteStorage on a file', () => {
  const modeOf = (path: string): number => statSync(path).mode & 0o777;

  it('creates the database, its WAL and shared memory owner-only (0600), whatever the umask', async () => {
    const file = freshFile();
    const umask = process.umask(0o000);
    let s: SqliteStorage;
    try {
      s = await SqliteStorage.open(file);
      await s.create('/secret', 'data');
    } finally {
      process.umask(umask);
    }
    for (const path of [file, `${file}-wal`, `${file}-shm`])
      expect([path, modeOf(path)]).toEqual([path, 0o600]);
    await s.close();
  });

  it('tightens a looser database, WAL and shared memory to 0600 when it opens them', async () => {
    const file = freshFile();
    const first = await SqliteStorage.open(file);
    await first.create('/secret', 'data');
    // while the first connection keeps the WAL and shared memory, someone loosens every mode
    const paths = [file, `${file}-wal`, `${file}-shm`];
    for (const path of paths) chmodSync(path, 0o644);
    const s = await SqliteStorage.open(file);
    for (const path of paths) expect([path, modeOf(path)]).toEqual([path, 0o600]);
    expect((await s.get('/secret'))?.value).toBe('data');
    await s.close();
    await first.close();
  });

  it('has the kine-style log table, WAL, and UNIQUE(name, prev_revision)', async () => {
    const file = freshFile();
    const s = await SqliteStorage.open(file);
    await s.create('/a', '1');
    const db = new Database(file);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const columns = (db.pragma('table_info(kv_log)') as { name: string }[]).map((c) => c.name);
      expect(columns).toEqual([
        'id',
        'name',
        'created',
        'deleted',
        'create_revision',
        'prev_revision',
        'value',
        'old_value',
      ]);
      // GIVEN the row /a has (prev_revision 0) WHEN another writer appends a sibling THEN refused
      const insert = db.prepare(
        `INSERT INTO kv_log (name, created, deleted, create_revision, prev_revision, value)
         VALUES ('/a', 1, 0, 0, 0, 'racer')`,
      );
      expect(() => insert.run()).toThrow(
        expect.objectContaining({ code: 'SQLITE_CONSTRAINT_UNIQUE' }) as Error,
      );
    } finally {
      db.close();
      await s.close();
    }
  });

  it('a restart keeps data, history and the compaction point; revisions keep increasing', async () => {
    const file = freshFile();
    const first = await SqliteStorage.open(file);
    const a1 = await first.create('/a', '1');
    const a2 = await first.update('/a', '2', a1.modRevision);
    const b1 = await first.create('/b', '1');
    await first.delete('/b');
    await first.compact(a2.modRevision);
    await first.close();
    await first.close(); // idempotent

    const second = await SqliteStorage.open(file);
    try {
      expect(await second.currentRevision()).toBe(4);
      expect(await second.compactedRevision()).toBe(2);
      expect(await second.get('/a')).toEqual(a2);
      expect((await second.list('', { revision: 3 })).items).toEqual([a2, b1]);
      const events: WatchEvent[] = [];
      const controller = new AbortController();
      await second.watch(
        '',
        { afterRevision: 2, signal: controller.signal },
        { onEvent: (e) => events.push(e), onError: () => undefined },
      );
      expect((await second.create('/c', '1')).modRevision).toBe(5);
      await waitUntil(() => events.length === 3);
      expect(events.map((e) => (e.type === 'put' ? e.kv.modRevision : e.revision))).toEqual([
        3, 4, 5,
      ]);
      controller.abort();
    } finally {
      await second.close();
    }
  });

  it('compaction deletes exactly the superseded rows and tombstones at or below it', async () => {
    const file = freshFile();
    const s = await SqliteStorage.open(file);
    await s.create('/a', '1'); // 1: superseded by 2
    await s.update('/a', '2', 1); // 2: newest /a at 4, kept
    await s.create('/b', '1'); // 3: superseded by tombstone 4
    await s.delete('/b'); // 4: tombstone at or below 4
    await s.create('/c', '1'); // 5: above, kept
    await s.update('/a', '3', 2); // 6: above, kept
    await s.compact(4);
    expect(rawRows(file).map((r) => r.id)).toEqual([2, 5, 6]);
    await s.close();
  });

  it('never reuses a revision, even after compaction removed the newest rows and a restart', async () => {
    const file = freshFile();
    const first = await SqliteStorage.open(file);
    await first.create('/a', '1');
    await first.delete('/a');
    await first.compact(2);
    expect(rawRows(file)).toEqual([]);
    await first.close();
    const second = await SqliteStorage.open(file);
    expect(await second.currentRevision()).toBe(2);
    expect(await second.create('/a', 'again')).toEqual({
      key: '/a',
      value: 'again',
      createRevision: 3,
      modRevision: 3,
    });
    await second.close();
  });

  it('two connections to one file: reads see each other, and a stale CAS is a Conflict', async () => {
    const file = freshFile();
    const one = await SqliteStorage.open(file);
    const two = await SqliteStorage.open(file);
    try {
      const created = await one.create('/k', '1');
      expect(await two.get('/k')).toEqual(created);
      await two.update('/k', '2', created.modRevision);
      const e = await one.update('/k', '3', created.modRevision).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(StorageError);
      expect(e).toMatchObject({ code: StorageErrorCode.Conflict, revision: 2 });
      expect(await one.currentRevision()).toBe(2);
      expect((await one.list('')).revision).toBe(2);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('close commits the writes it already accepted', async () => {
    const file = freshFile();
    const first = await SqliteStorage.open(file);
    const pending = [first.create('/a', '1'), first.create('/b', '1')];
    await first.close();
    expect(await Promise.all(pending)).toHaveLength(2);
    const second = await SqliteStorage.open(file);
    expect((await second.list('')).items.map((i) => i.key)).toEqual(['/a', '/b']);
    await second.close();
  });

  it('concurrent writes share a commit and still each get their own revision', async () => {
    const file = freshFile();
    const s = await SqliteStorage.open(file);
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, i) => s.create(`/k/${String(i).padStart(2, '0')}`, `${i}`)),
    );
    expect(created.map((kv) => kv.modRevision)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    expect(await s.count('/k/')).toBe(50);
    await s.close();
  });

  it('open rejects with Unavailable when the file cannot be opened', async () => {
    const e = await SqliteStorage.open(join(dir, 'missing-dir', 'x.sqlite')).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(StorageError);
    expect(e).toMatchObject({ code: StorageErrorCode.Unavailable });
  });

  it('every acknowledged write survives SIGKILL of the writing process', async () => {
    ensureBuilt();
    const file = freshFile();
    const acked = await runWriterUntilKilled(file, 300);
    expect(acked.length).toBeGreaterThanOrEqual(300);

    const s = await SqliteStorage.open(file);
    try {
      const latestAck = new Map<string, KeyValue>();
      for (const kv of acked) latestAck.set(kv.key, kv);
      for (const [key, ack] of latestAck) {
        const now = await s.get(key);
        // A write after the last ack may have committed too; never an older state.
        expect(now?.modRevision ?? 0).toBeGreaterThanOrEqual(ack.modRevision);
        if (now?.modRevision === ack.modRevision) expect(now).toEqual(ack);
      }
      const maxAcked = Math.max(...acked.map((kv) => kv.modRevision));
      expect(await s.currentRevision()).toBeGreaterThanOrEqual(maxAcked);
      expect((await s.create('/after-crash', 'v')).modRevision).toBeGreaterThan(maxAcked);
    } finally {
      await s.close();
    }
  });
});

const RepoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The child runs the compiled adapter. `npm test` builds first; when run alone and dist/ is
 * missing or older than the sources, build it here.
 */
function ensureBuilt(): void {
  const pairs = [
    ['src/storage/sqlite-storage.ts', 'dist/src/storage/sqlite-storage.js'],
    ['src/ports/storage.ts', 'dist/src/ports/storage.js'],
  ] as const;
  const stale = (): boolean =>
    pairs.some(
      ([src, out]) =>
        !existsSync(join(RepoRoot, out)) ||
        statSync(join(RepoRoot, src)).mtimeMs > statSync(join(RepoRoot, out)).mtimeMs,
    );
  if (!stale()) return;
  const tsc = join(RepoRoot, 'node_modules/typescript/bin/tsc');
  // Errors elsewhere in the tree do not stop tsc from emitting these two files.
  spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: RepoRoot });
  if (stale())
    throw new Error('dist/src/storage/sqlite-storage.js is missing or stale: run npm run build');
}

/** Starts test/support/sqlite-writer.js, kills it with SIGKILL after `count` acks, returns them. */
function runWriterUntilKilled(file: string, count: number): Promise<KeyValue[]> {
  const child = spawn(process.execPath, [join(RepoRoot, 'test/support/sqlite-writer.js'), file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.split('\n').length > count + 1) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') {
        reject(new Error(`writer exited on its own (code ${String(code)}): ${err}`));
        return;
      }
      // Only complete lines count: a partial last line was never fully acknowledged.
      const lines = out.split('\n').slice(0, -1);
      resolve(lines.slice(1).map((line) => JSON.parse(line) as KeyValue));
    });
  });
}

async function waitUntil(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

// Child process for the SQLite crash test (src/storage/sqlite-storage.test.ts): writes in a loop
// through the real SqliteStorage (the compiled dist/ build) and acknowledges each write on stdout
// as one JSON line, only after the write resolved. The parent kills it with SIGKILL, reopens the
// file and checks every acknowledged write is there. stdout to a pipe is synchronous on Linux, so
// an acknowledgement is out before the next write starts.
import process from 'node:process';
import { SqliteStorage } from '../../dist/src/storage/sqlite-storage.js';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: sqlite-writer.js <database file>');

const storage = await SqliteStorage.open(file);
const ack = (kv) => process.stdout.write(`${JSON.stringify(kv)}\n`);
process.stdout.write(`${JSON.stringify({ ready: await storage.currentRevision() })}\n`);
for (let i = 0; ; i++) {
  ack(await storage.create(`/acked/${i}`, JSON.stringify({ i })));
  // Rewrite an older key as well, so the log holds updates and not only creates.
  if (i >= 5) {
    const old = await storage.get(`/acked/${i - 5}`);
    if (old !== undefined)
      ack(await storage.update(old.key, JSON.stringify({ i, again: true }), old.modRevision));
  }
}

/**
 * Free ports for tests that start a whole box: `mco start --port-base P` needs P … P+6, and
 * P+7+i for node i's daemon metrics.
 */
import { createServer } from 'node:net';

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => {
      resolve(false);
    });
    s.listen(port, '127.0.0.1', () =>
      s.close(() => {
        resolve(true);
      }),
    );
  });
}

/** `count` consecutive free ports (16: mco start's range for up to 9 nodes); the first of them. */
export async function freePortBase(count = 16): Promise<number> {
  for (;;) {
    const base = 30_000 + Math.floor(Math.random() * 20_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
}

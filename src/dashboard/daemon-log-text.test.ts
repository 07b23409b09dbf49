import { describe, expect, it } from 'vitest';
import { daemonLogText } from './daemon-log-text.js';

async function through(chunks: readonly string[]): Promise<string> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(encoder.encode(chunk));
      c.close();
    },
  });
  return new Response(daemonLogText(body)).text();
}

const entry = JSON.stringify({
  level: 30,
  time: Date.UTC(2026, 11, 7, 7, 1, 2),
  pid: 9,
  hostname: 'h',
  component: 'machine-config-daemon',
  msg: 'node is Done',
  node: 'worker-0',
});

describe('the daemon log on the dashboard', () => {
  it('prints each JSON line as mco logs does, other lines as they are', async () => {
    expect(await through([`${entry}\nplain text\n`])).toBe(
      '2026-12-07T07:01:02.000Z INFO  node is Done node=worker-0\nplain text\n',
    );
  });

  it('joins a line cut across chunks before formatting it, and keeps a last line without newline', async () => {
    const half = Math.floor(entry.length / 2);
    expect(await through([entry.slice(0, half), entry.slice(half), '\n{not json'])).toBe(
      '2026-12-07T07:01:02.000Z INFO  node is Done node=worker-0\n{not json',
    );
  });
});

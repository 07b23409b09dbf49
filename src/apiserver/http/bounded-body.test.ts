import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import { DrainBytes, readBoundedBody } from './bounded-body.js';

const LIMIT = 3 * 1024 * 1024;

/** A request whose body arrives in chunks, counting what the reader pulled. */
function streamed(total: number, chunk = 64 * 1024, contentLength?: string) {
  let sent = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= total) {
        c.close();
        return;
      }
      const n = Math.min(chunk, total - sent);
      sent += n;
      c.enqueue(new Uint8Array(n).fill(0x61));
    },
    cancel() {
      cancelled = true;
    },
  });
  const headers = contentLength === undefined ? {} : { 'Content-Length': contentLength };
  const request = new Request('http://x/', {
    method: 'POST',
    body,
    headers,
    duplex: 'half',
  });
  return { request, pulled: () => sent, cancelled: () => cancelled };
}

async function status(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    if (isStatusError(e)) return e.toStatus();
    throw e;
  }
  return 'read';
}

describe('readBoundedBody', () => {
  it('reads a body of exactly the limit whole', async () => {
    const { request } = streamed(LIMIT);
    expect((await readBoundedBody(request)).byteLength).toBe(LIMIT);
  });

  it('answers one byte more with the 413 kube-apiserver gives, reading the rest only to drop it', async () => {
    const s = streamed(20 * 1024 * 1024);
    expect(await status(readBoundedBody(s.request))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Request entity too large: limit is 3145728',
      reason: 'RequestEntityTooLarge',
      code: 413,
    });
    // read to its end (20 MiB is less than what is drained), so the client sees the answer
    expect(s.pulled()).toBe(20 * 1024 * 1024);

    const endless = streamed(200 * 1024 * 1024);
    expect(await status(readBoundedBody(endless.request))).toMatchObject({ code: 413 });
    expect(endless.pulled()).toBeLessThan(DrainBytes + 256 * 1024);
    expect(endless.cancelled()).toBe(true);

    const declared = streamed(4 * 1024 * 1024, 64 * 1024, String(4 * 1024 * 1024));
    expect(await status(readBoundedBody(declared.request))).toMatchObject({ code: 413 });

    const one = streamed(LIMIT + 1);
    expect(await status(readBoundedBody(one.request))).toMatchObject({ code: 413 });
  });

  it('refuses a Content-Length past what it would drain before reading anything', async () => {
    // a body that never ends: reading it would never finish
    const body = new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => undefined) });
    const request = new Request('http://x/', {
      method: 'POST',
      body,
      headers: { 'Content-Length': String(DrainBytes + 1) },
      duplex: 'half',
    });
    expect(await status(readBoundedBody(request))).toMatchObject({ code: 413 });
  });

  it('reads an empty or absent body as empty, and joins chunks in order', async () => {
    expect((await readBoundedBody(new Request('http://x/', { method: 'POST' }))).byteLength).toBe(
      0,
    );
    const joined = await readBoundedBody(
      new Request('http://x/', { method: 'POST', body: 'abc'.repeat(100_000) }),
    );
    expect(new TextDecoder().decode(joined)).toBe('abc'.repeat(100_000));
  });

  it('takes a smaller limit when given', async () => {
    const s = streamed(11);
    expect(await status(readBoundedBody(s.request, { limit: 10 }))).toMatchObject({
      message: 'Request entity too large: limit is 10',
    });
  });

  describe("from Node's request stream", () => {
    /** A Node stream of `total` bytes in 64 KiB chunks, made as it is read. */
    function nodeStream(total: number): { stream: Readable; pulled: () => number } {
      let sent = 0;
      const stream = new Readable({
        read() {
          if (sent >= total) {
            this.push(null);
            return;
          }
          const n = Math.min(64 * 1024, total - sent);
          sent += n;
          this.push(Buffer.alloc(n, 0x61));
        },
      });
      return { stream, pulled: () => sent };
    }
    /** The web request beside it carries only the headers: its body must not be read. */
    const headersOnly = (headers: Record<string, string> = {}) =>
      new Request('http://x/', { method: 'POST', headers });

    it('reads the whole body when it fits', async () => {
      const { stream } = nodeStream(LIMIT);
      expect((await readBoundedBody(headersOnly(), { incoming: stream })).byteLength).toBe(LIMIT);
    });

    it('answers 413 past the limit, drains at most DrainBytes, and leaves the stream open', async () => {
      const endless = nodeStream(200 * 1024 * 1024);
      expect(
        await status(readBoundedBody(headersOnly(), { incoming: endless.stream })),
      ).toMatchObject({ code: 413, message: 'Request entity too large: limit is 3145728' });
      expect(endless.pulled()).toBeLessThan(DrainBytes + 256 * 1024);
      // not destroyed: the adapter drains the rest once the 413 is written
      expect(endless.stream.destroyed).toBe(false);

      const declared = nodeStream(4 * 1024 * 1024);
      expect(
        await status(
          readBoundedBody(headersOnly({ 'Content-Length': String(4 * 1024 * 1024) }), {
            incoming: declared.stream,
          }),
        ),
      ).toMatchObject({ code: 413 });
    });
  });
});

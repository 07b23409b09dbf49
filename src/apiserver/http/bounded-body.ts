/**
 * Reading a request body with kube-apiserver's bound (`limitedReadBody`): a body over the limit is
 * a 413 `Request entity too large: limit is 3145728`, and is never held whole. A Content-Length over
 * the limit is refused before anything is read; otherwise chunks are read until the limit is passed
 * by one byte, and then the rest is cancelled.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { MaxRequestBodyBytes } from '../request-limits.js';

export function bodyTooLarge(limit: number): StatusError {
  return StatusError.requestEntityTooLarge(`limit is ${String(limit)}`);
}

export async function readBoundedBody(
  request: Request,
  limit = MaxRequestBodyBytes,
): Promise<Uint8Array> {
  const declared = request.headers.get('Content-Length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > limit) {
    throw bodyTooLarge(limit);
  }
  if (request.body === null) return new Uint8Array();
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

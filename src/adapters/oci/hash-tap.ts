/**
 * A pass-through stream that hashes and counts what flows through it: how a blob's digest and size
 * (and a layer's uncompressed diff ID) are known in the same pass that writes or unpacks it.
 */
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

export class HashTap extends Transform {
  readonly #hash: Hash = createHash('sha256');
  #bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#hash.update(chunk);
    this.#bytes += chunk.length;
    done(null, chunk);
  }

  /** `sha256:<hex>` of everything seen; call once the stream has ended. */
  digest(): string {
    return `sha256:${this.#hash.digest('hex')}`;
  }

  get bytes(): number {
    return this.#bytes;
  }
}

/** `sha256:<hex>` of some bytes. */
export function sha256Digest(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

const DigestPattern = /^sha256:[0-9a-f]{64}$/;

export function isSha256Digest(text: string): boolean {
  return DigestPattern.test(text);
}

/** The hex part of a `sha256:<hex>` digest (file names under blobs/sha256/, cache keys). */
export function digestHex(digest: string): string {
  if (!isSha256Digest(digest)) throw new Error(`not a sha256 digest: ${digest}`);
  return digest.slice('sha256:'.length);
}

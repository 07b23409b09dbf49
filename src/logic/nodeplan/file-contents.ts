/**
 * The bytes of an Ignition file entry (upstream DecodeIgnitionFileContents): the `data:` URL
 * decoded, then gunzipped when `compression` is "gzip". Remote sources were fetched when the
 * config was rendered, so only inline data is handled. Gzip uses node:zlib's synchronous gunzip,
 * which is plain computation (no I/O).
 */
import { gunzipSync } from 'node:zlib';
import { goQuote } from '../../lib/go/quote.js';
import { describeDataUrlError, parseDataUrl } from '../../ignition/data-url.js';
import { err, ok, type Result } from '../../lib/result.js';
import { errorText } from '../../lib/error-text.js';

export type FileContentsError =
  | { readonly kind: 'DataUrl'; readonly message: string }
  | { readonly kind: 'GzipReader'; readonly message: string }
  | { readonly kind: 'Decompress'; readonly message: string }
  | { readonly kind: 'UnsupportedCompression'; readonly compression: string };

export function describeFileContentsError(e: FileContentsError): string {
  switch (e.kind) {
    case 'DataUrl':
      return `could not decode file content string: ${e.message}`;
    case 'GzipReader':
      return `could not create gzip reader: ${e.message}`;
    case 'Decompress':
      return `failed decompressing: ${e.message}`;
    case 'UnsupportedCompression':
      return `unsupported compression type ${goQuote(e.compression)}`;
  }
}

const EMPTY = new Uint8Array(0);

/** Go's gzip.NewReader header check, with Go's error texts. */
function gzipHeaderError(data: Uint8Array): string | undefined {
  if (data.length === 0) return 'EOF';
  if (data.length < 10) return 'unexpected EOF';
  if (data[0] !== 0x1f || data[1] !== 0x8b || data[2] !== 0x08) return 'gzip: invalid header';
  return undefined;
}

/** zlib's failure as the text Go's gzip/flate readers give for the same input. */
function goGzipMessage(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  const message = errorText(e);
  if (code === 'Z_BUF_ERROR') return 'unexpected EOF';
  if (/incorrect (data|length) check/.test(message)) return 'gzip: invalid checksum';
  return 'flate: corrupt input';
}

function gunzip(data: Uint8Array): Result<Uint8Array, FileContentsError> {
  const header = gzipHeaderError(data);
  if (header !== undefined) return err({ kind: 'GzipReader', message: header });
  try {
    return ok(new Uint8Array(gunzipSync(data)));
  } catch (e: unknown) {
    return err({ kind: 'Decompress', message: goGzipMessage(e) });
  }
}

export function decodeFileContents(
  source: string | undefined,
  compression: string | undefined,
): Result<Uint8Array, FileContentsError> {
  // a file without a source is an empty file
  if (source === undefined) return ok(EMPTY);
  const url = parseDataUrl(source);
  if (!url.ok) return err({ kind: 'DataUrl', message: describeDataUrlError(url.error) });
  if (compression === undefined || compression === '') return ok(url.value.data);
  if (compression === 'gzip') return gunzip(url.value.data);
  return err({ kind: 'UnsupportedCompression', compression });
}

/**
 * `GET /openapi/v2` as kube-openapi's handler serves it: the Accept list picks JSON
 * (`application/json`, `application/*`, `*\/*`, or no Accept) or gnostic protobuf (both the
 * deprecated `…spec.v2@v1.0+protobuf` spelling kubectl sends and `…spec.v2.v1.0+protobuf`),
 * answered as `application/com.github.proto-openapi.spec.v2.v1.0+protobuf`; nothing acceptable is
 * 406 with an empty body. Both encodings carry the ETag of the JSON bytes, `Last-Modified` (when
 * the document was built) and `Vary: Accept`, answer `If-None-Match` / `If-Modified-Since` with 304
 * (kubectl's HTTP cache revalidates with them), and are gzipped when the client accepts it.
 * Encodings are computed on first use and kept.
 */
import { gzipSync } from 'node:zlib';
import type { ResourceType } from '../resource-type.js';
import { parseAccept } from './negotiate.js';
import { buildOpenApiV2, type OpenApiV2 } from './openapi-v2.js';
import { encodeOpenApiV2 } from './openapi-v2-protobuf.js';

export const OpenApiV2ProtobufType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const ProtobufAccepts = new Set([
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  OpenApiV2ProtobufType,
]);

type Encoding = 'json' | 'protobuf';

/** The encoding the Accept list asks for first; undefined when none is served (406). */
export function negotiateOpenApiV2(accept: string | null): Encoding | undefined {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return 'json';
  for (const r of ranges) {
    if (
      r.mediaType === 'application/json' ||
      r.mediaType === 'application/*' ||
      r.mediaType === '*/*'
    )
      return 'json';
    if (ProtobufAccepts.has(r.mediaType)) return 'protobuf';
  }
  return undefined;
}

/** Go's ETag list match (weak comparison, `*` matches anything). */
function etagMatches(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === etag);
}

export class OpenApiV2Handler {
  readonly #types: readonly ResourceType[];
  readonly #gitVersion: string;
  readonly #lastModified: string;
  #doc: OpenApiV2 | undefined;
  readonly #bodies = new Map<string, Uint8Array>();

  /** `builtAtMs` is the Last-Modified the document reports (the server's start). */
  constructor(types: readonly ResourceType[], gitVersion: string, builtAtMs: number) {
    this.#types = types;
    this.#gitVersion = gitVersion;
    this.#lastModified = new Date(Math.floor(builtAtMs / 1000) * 1000).toUTCString();
  }

  get document(): OpenApiV2 {
    this.#doc ??= buildOpenApiV2(this.#types, this.#gitVersion);
    return this.#doc;
  }

  #body(encoding: Encoding, gzip: boolean): Uint8Array {
    const key = `${encoding}/${String(gzip)}`;
    let body = this.#bodies.get(key);
    if (body === undefined) {
      const plain =
        encoding === 'json' ? this.document.json : encodeOpenApiV2(this.document.document);
      body = gzip ? new Uint8Array(gzipSync(plain)) : plain;
      this.#bodies.set(key, body);
    }
    return body;
  }

  serve(request: Request): Response {
    const encoding = negotiateOpenApiV2(request.headers.get('Accept'));
    const headers = new Headers({ Vary: 'Accept' });
    if (encoding === undefined) return new Response(null, { status: 406, headers });
    const { etag } = this.document;
    headers.set('Etag', etag);
    headers.set('Last-Modified', this.#lastModified);
    const ifNoneMatch = request.headers.get('If-None-Match');
    const ifModifiedSince = request.headers.get('If-Modified-Since');
    const notModified =
      ifNoneMatch !== null
        ? etagMatches(ifNoneMatch, etag)
        : ifModifiedSince !== null && Date.parse(ifModifiedSince) >= Date.parse(this.#lastModified);
    if (notModified) return new Response(null, { status: 304, headers });
    headers.set('Content-Type', encoding === 'json' ? 'application/json' : OpenApiV2ProtobufType);
    const gzip = /\bgzip\b/i.test(request.headers.get('Accept-Encoding') ?? '');
    if (gzip) headers.set('Content-Encoding', 'gzip');
    const body = this.#body(encoding, gzip);
    headers.set('Content-Length', String(body.byteLength));
    return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
  }
}

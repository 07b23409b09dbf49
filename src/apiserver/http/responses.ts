/**
 * Building HTTP responses: JSON bodies, Status bodies for every StatusError (500 InternalError for
 * anything else), the generic 404/405 Status answers of unknown routes, and `Warning: 299` headers.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import { StatusReason } from '../../api/meta/v1/status.js';
import { stringify } from 'yaml';
import type { KubeObject } from '../resource-store.js';
import { objectJson } from '../shared-objects.js';

/**
 * A list in JSON, byte for byte `JSON.stringify({ kind, apiVersion, metadata, items })`, with each
 * shared item's JSON the one computed for it (shared-objects.ts) rather than serialized again.
 * The items are encoded straight into one buffer of the exact size: joining them first and
 * encoding the result made the server flatten, scan and copy a 3,000-item LIST's two megabytes
 * several times (a quarter of the server's time on such LISTs).
 */
export function jsonListResponse(
  list: { kind: string; apiVersion: string; metadata: Record<string, unknown> },
  items: readonly KubeObject[],
): Response {
  const head = JSON.stringify({
    kind: list.kind,
    apiVersion: list.apiVersion,
    metadata: list.metadata,
  });
  const open = `${head.slice(0, -1)},"items":[`;
  const texts = items.map(objectJson);
  let size = Buffer.byteLength(open) + Math.max(0, texts.length - 1) + 2;
  for (const text of texts) size += Buffer.byteLength(text);
  const body = Buffer.allocUnsafe(size);
  let at = body.write(open, 0);
  texts.forEach((text, i) => {
    if (i > 0) at = body.writeUInt8(0x2c, at);
    at += body.write(text, at);
  });
  body.write(']}', at);
  return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
}

/** A JSON body, encoded here (a Table of thousands of rows is as big as a list; see above). */
export function jsonResponse(status: number, body: unknown, headers?: Headers): Response {
  const h = headers ?? new Headers();
  h.set('Content-Type', 'application/json');
  const text = JSON.stringify(body) as string | undefined; // undefined for an undefined body
  return new Response(text === undefined ? null : Buffer.from(text), { status, headers: h });
}

/** YAML as kube-apiserver writes it (sigs.k8s.io/yaml: keys sorted, block style). */
export function yamlResponse(status: number, body: unknown, headers?: Headers): Response {
  const h = headers ?? new Headers();
  h.set('Content-Type', 'application/yaml');
  return new Response(stringify(body, { sortMapEntries: true, lineWidth: 0, indentSeq: false }), {
    status,
    headers: h,
  });
}

/** The Status body of a StatusError, with its code as the HTTP status. */
export function statusResponse(e: StatusError, headers?: Headers): Response {
  const code = e.code >= 400 && e.code <= 599 ? e.code : 500;
  return jsonResponse(code, e.toStatus(), headers);
}

/** 404 for a path under /api or /apis that names no served resource. */
export function resourceNotFound(): StatusError {
  return new StatusError({
    message: 'the server could not find the requested resource',
    reason: StatusReason.NotFound,
    code: 404,
    details: {},
  });
}

/** 405 for a method the resource does not serve. */
export function methodNotAllowed(): StatusError {
  return new StatusError({
    message: 'the server does not allow this method on the requested resource',
    reason: StatusReason.MethodNotAllowed,
    code: 405,
    details: {},
  });
}

/** upstream's 404 for paths outside the API: plain text. */
export function pageNotFound(): Response {
  return new Response('404 page not found\n', {
    status: 404,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' },
  });
}

/**
 * `299 - "text"` with `"` and `\` escaped. Headers carry bytes, so the UTF-8 of the text is put in
 * as one char per byte, which Node writes out unchanged. A warning can quote what a client sent
 * (an unknown Ignition key): control characters, which Node refuses in a header and would fail
 * the response of a write already made, become spaces, as Go's server does with a newline.
 */
function warningHeaderValue(text: string): string {
  const escaped = text.replace(/["\\]/g, (c) => `\\${c}`);
  const bytes = new TextEncoder().encode(`299 - "${escaped}"`);
  return String.fromCharCode(...bytes.map((b) => (b < 0x20 || b === 0x7f ? 0x20 : b)));
}

/** Headers with one Warning per distinct message, in order. */
export function warningHeaders(warnings: readonly string[] | undefined): Headers {
  const headers = new Headers();
  for (const w of new Set(warnings ?? [])) headers.append('Warning', warningHeaderValue(w));
  return headers;
}

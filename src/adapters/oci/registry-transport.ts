/**
 * One HTTP(S) request to a registry on node:http/node:https (Node 20's fetch cannot take a custom
 * CA without undici), and the texts of network failures as Go's net and crypto/x509 print them, so
 * a node's Degraded reason reads as it would with containers/image (`dial tcp 127.0.0.1:5000:
 * connect: connection refused`).
 */
import { request as httpRequest, type Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import { errorText } from '../../lib/error-text.js';

export interface SendOptions {
  readonly method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Buffer | Readable;
  readonly agent: HttpAgent | HttpsAgent;
  readonly signal?: AbortSignal;
  /** Socket inactivity limit. */
  readonly timeoutMs?: number;
}

class NetworkError extends Error {
  override readonly name = 'NetworkError';
}

/** Sends a request; resolves with the response (whose body the caller must consume). */
export function send(url: URL, o: SendOptions): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: o.method,
        headers: o.headers,
        agent: o.agent,
        ...(o.signal === undefined ? {} : { signal: o.signal }),
        timeout: o.timeoutMs ?? 60_000,
      },
      resolve,
    );
    req.on('error', reject);
    req.on('timeout', () => {
      req.destroy(Object.assign(new NetworkError('i/o timeout'), { code: 'ETIMEDOUT' }));
    });
    if (o.body === undefined) req.end();
    else if (Buffer.isBuffer(o.body)) req.end(o.body);
    else {
      o.body.on('error', (e) => req.destroy(e));
      o.body.pipe(req);
    }
  });
}

/** Reads a response body (at most `limit` bytes). */
export async function readBody(res: IncomingMessage, limit = 8 << 20): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) {
      res.destroy();
      throw new Error(`response body larger than ${limit} bytes`);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** Drops a response body we do not need, keeping the connection reusable. */
export function discard(res: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    res.on('end', resolve);
    res.on('error', () => {
      resolve();
    });
    res.resume();
  });
}

const UnknownAuthority = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
]);

/** A network failure as Go prints it (what containers/image users see). */
export function networkErrorText(e: unknown, url: URL): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
  const address = `${url.hostname}:${port}`;
  if (code === 'ECONNREFUSED') return `dial tcp ${address}: connect: connection refused`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `dial tcp: lookup ${url.hostname}: no such host`;
  if (code === 'ETIMEDOUT') return `dial tcp ${address}: i/o timeout`;
  if (code === 'ECONNRESET') return `read tcp ${address}: connection reset by peer`;
  if (code !== undefined && UnknownAuthority.has(code))
    return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `tls: failed to verify certificate: x509: certificate is not valid for ${url.hostname}`;
  if (code === 'CERT_HAS_EXPIRED')
    return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
  return errorText(e);
}

/** Loopback registries may be plain HTTP (docker treats 127.0.0.0/8 as insecure by default). */
export function isLoopbackRegistry(registry: string): boolean {
  const host = registry.startsWith('[')
    ? registry.slice(1, registry.indexOf(']'))
    : registry.replace(/:\d+$/, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

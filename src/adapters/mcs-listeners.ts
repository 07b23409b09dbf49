/**
 * The machine config server's sockets: a fetch handler on an HTTPS port (TLS 1.2+, HTTP/1.1
 * only, as upstream disables HTTP/2) and one (the same or its own) on a plain HTTP port. The certificate and key are re-read
 * every `reloadIntervalMs`; a new pair is installed only if it parses, the key matches and the
 * certificate is valid now. Otherwise the server keeps the pair it has and logs why, once per
 * change of the files.
 */
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import { getRequestListener } from '@hono/node-server';
import type { Logger } from '../ports/logger.js';
import { errorText } from '../lib/error-text.js';

export interface McsListenersOptions {
  readonly fetch: (request: Request) => Response | Promise<Response>;
  /** What the plain HTTP port answers with (default: `fetch`). */
  readonly insecureFetch?: (request: Request) => Response | Promise<Response>;
  readonly host: string;
  /** undefined: no HTTPS listener; 0: any free port. */
  readonly securePort?: number;
  readonly insecurePort?: number;
  readonly certFile: string;
  readonly keyFile: string;
  readonly log: Logger;
  /** How often the certificate files are checked; default 10 s. */
  readonly reloadIntervalMs?: number;
  readonly now?: () => number;
}

export interface McsListeners {
  readonly securePort: number | undefined;
  readonly insecurePort: number | undefined;
  /** Checks the certificate files now (the timer does it every interval). */
  reloadCertificate(): Promise<void>;
  close(): Promise<void>;
}

/** What a certificate/key pair looks like once checked. */
export interface CheckedPair {
  readonly key: Buffer;
  readonly cert: Buffer;
  readonly subject: string;
  readonly notAfter: string;
  readonly fingerprint: string;
}

/** Why a pair is not installed; the message is what the log says. */
class CertificatePairError extends Error {
  override readonly name = 'CertificatePairError';
}

const TlsMinVersion = 'TLSv1.2';

/** Reads and checks a pair: parseable, key matches the leaf certificate, valid at `nowMs`. */
export async function readCertificatePair(
  certFile: string,
  keyFile: string,
  nowMs: number,
): Promise<CheckedPair> {
  let cert: Buffer;
  let key: Buffer;
  try {
    [cert, key] = await Promise.all([readFile(certFile), readFile(keyFile)]);
  } catch (e) {
    throw new CertificatePairError(`cannot read the certificate or key: ${(e as Error).message}`);
  }
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (e) {
    throw new CertificatePairError(`${certFile} is not a PEM certificate: ${(e as Error).message}`);
  }
  let matches: boolean;
  try {
    matches = x509.checkPrivateKey(createPrivateKey(key));
  } catch (e) {
    throw new CertificatePairError(`${keyFile} is not a PEM private key: ${(e as Error).message}`);
  }
  if (!matches)
    throw new CertificatePairError(`${keyFile} does not match the certificate in ${certFile}`);
  const notBefore = Date.parse(x509.validFrom);
  const notAfter = Date.parse(x509.validTo);
  if (nowMs > notAfter)
    throw new CertificatePairError(`the certificate in ${certFile} expired at ${x509.validTo}`);
  if (nowMs < notBefore)
    throw new CertificatePairError(
      `the certificate in ${certFile} is not valid before ${x509.validFrom}`,
    );
  const fingerprint = createHash('sha256').update(cert).update(key).digest('hex');
  return { key, cert, subject: x509.subject, notAfter: x509.validTo, fingerprint };
}

function listen(server: HttpServer | HttpsServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: HttpServer | HttpsServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}

export async function startMcsListeners(options: McsListenersOptions): Promise<McsListeners> {
  const { log } = options;
  const now = options.now ?? (() => Date.now());
  // node:http wants a void listener; the adapter's promise carries no result and never rejects.
  const listenerOf = (
    fetch: McsListenersOptions['fetch'],
  ): ((req: IncomingMessage, res: ServerResponse) => void) => {
    const handle = getRequestListener(fetch);
    return (req, res) => {
      void handle(req, res);
    };
  };
  const listener = listenerOf(options.fetch);
  const servers: (HttpServer | HttpsServer)[] = [];
  let securePort: number | undefined;
  let insecurePort: number | undefined;
  let https: HttpsServer | undefined;
  let installed = '';
  let lastFailure = '';

  const reloadCertificate = async (): Promise<void> => {
    if (https === undefined) return;
    let pair: CheckedPair;
    try {
      pair = await readCertificatePair(options.certFile, options.keyFile, now());
    } catch (e) {
      const message = errorText(e);
      if (message !== lastFailure) {
        lastFailure = message;
        log.error('not reloading the serving certificate; keeping the current one', {
          reason: message,
        });
      }
      return;
    }
    lastFailure = '';
    if (pair.fingerprint === installed) return;
    const context: SecureContextOptions = {
      key: pair.key,
      cert: pair.cert,
      minVersion: TlsMinVersion,
    };
    https.setSecureContext(context);
    installed = pair.fingerprint;
    log.info('serving certificate reloaded', { subject: pair.subject, notAfter: pair.notAfter });
  };

  try {
    if (options.securePort !== undefined) {
      const pair = await readCertificatePair(options.certFile, options.keyFile, now()).catch(
        (e: unknown) => {
          // An expired pair at start is served anyway (there is nothing better), with a warning.
          if (e instanceof CertificatePairError && /expired|not valid before/.test(e.message)) {
            log.warn('serving a certificate that is not currently valid', { reason: e.message });
            return undefined;
          }
          throw e;
        },
      );
      const [cert, key] =
        pair === undefined
          ? await Promise.all([readFile(options.certFile), readFile(options.keyFile)])
          : [pair.cert, pair.key];
      installed = pair?.fingerprint ?? '';
      https = createHttpsServer({ cert, key, minVersion: TlsMinVersion }, listener);
      servers.push(https);
      securePort = await listen(https, options.securePort, options.host);
    }
    if (options.insecurePort !== undefined) {
      const http = createHttpServer(
        options.insecureFetch === undefined ? listener : listenerOf(options.insecureFetch),
      );
      servers.push(http);
      insecurePort = await listen(http, options.insecurePort, options.host);
    }
  } catch (e) {
    await Promise.all(servers.map(close));
    throw e;
  }

  const timer = setInterval(() => {
    void reloadCertificate();
  }, options.reloadIntervalMs ?? 10_000);
  timer.unref();

  return {
    securePort,
    insecurePort,
    reloadCertificate,
    async close() {
      clearInterval(timer);
      await Promise.all(servers.map(close));
    },
  };
}

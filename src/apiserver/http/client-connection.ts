/**
 * The TLS side of a request as the Node adapter hands it over (`env.incoming.socket`, a
 * TLSSocket when the listener is HTTPS): the DER of the client certificate, if the caller sent
 * one. Read by shape, so this layer needs no socket types; anything else (tests calling
 * `app.request`, a plain socket) is a connection without a certificate.
 *
 * The certificate is read once per connection (reading it copies it out of OpenSSL) and the same
 * bytes serve the connection's later requests: the server refuses renegotiation, as Go's TLS
 * server does, so a connection's certificate never changes.
 */
import type { ClientConnection } from '../auth.js';

interface PeerCertificateSource {
  getPeerCertificate(detailed: boolean): { raw?: unknown } | null;
}

function isPeerCertificateSource(socket: unknown): socket is PeerCertificateSource {
  return (
    typeof socket === 'object' &&
    socket !== null &&
    typeof (socket as Partial<PeerCertificateSource>).getPeerCertificate === 'function'
  );
}

const connections = new WeakMap<PeerCertificateSource, ClientConnection>();

export function clientConnection(env: unknown): ClientConnection {
  const incoming = (env as { incoming?: { socket?: unknown } } | undefined)?.incoming;
  const socket = incoming?.socket;
  if (!isPeerCertificateSource(socket)) return {};
  let connection = connections.get(socket);
  if (connection === undefined) {
    const raw = socket.getPeerCertificate(false)?.raw;
    connection = raw instanceof Uint8Array && raw.length > 0 ? { peerCertificate: raw } : {};
    connections.set(socket, connection);
  }
  return connection;
}

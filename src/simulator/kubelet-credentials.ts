/**
 * The kubelet's client credentials, obtained by TLS bootstrapping as a real kubelet does
 * (`--bootstrap-kubeconfig=/etc/kubernetes/kubeconfig --kubeconfig=/var/lib/kubelet/kubeconfig`):
 *
 * - a node that already has `/var/lib/kubelet/kubeconfig` with a certificate valid now uses it;
 * - otherwise, with the bootstrap kubeconfig Ignition wrote from the served config, it makes an
 *   ECDSA P-256 key (kept in `/var/lib/kubelet/pki/kubelet-client.key.tmp` until the certificate
 *   comes, so a restart asks again with the same key and finds its own CSR), creates the
 *   `node-csr-<digest>` CertificateSigningRequest for `system:node:<name>` with the kubelet signer,
 *   waits until it is approved and signed (or refused), and writes the certificate and key to
 *   `/var/lib/kubelet/pki/kubelet-client-current.pem` and the kubeconfig.
 *
 * Only the CSR API is used (create, get, watch by name), with the bootstrap identity, so the same
 * code joins the embedded API server and a real kube-apiserver. The kubeconfig carries the
 * certificate and key inline rather than the kubelet's path to the PEM file: the processes that
 * read it (the daemon, the supervisor) run outside the node's root, where that path means nothing.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  webcrypto,
  X509Certificate,
} from 'node:crypto';
import { parse, stringify } from 'yaml';
import {
  KubeletClientUsages,
  type CertificateSigningRequest,
} from '../api/certificates/v1/certificate-signing-request.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { parseCertificateRequestPem } from '../logic/certificates/certificate-request.js';
import {
  compatibleCsr,
  csrOutcome,
  kubeletClientCsr,
  kubeletCommonName,
  kubeletCsrName,
  KubeletOrganizations,
} from '../logic/certificates/kubelet-csr.js';
import type { Clock } from '../ports/clock.js';
import type { NodeFiles } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { errorText } from '../lib/error-text.js';

export const BootstrapKubeconfigPath = '/etc/kubernetes/kubeconfig';
export const KubeletKubeconfigPath = '/var/lib/kubelet/kubeconfig';
export const KubeletKeyPath = '/var/lib/kubelet/pki/kubelet-client.key.tmp';
const KubeletClientPemPath = '/var/lib/kubelet/pki/kubelet-client-current.pem';

/** A node's API identity: a client and the kubeconfig (a path on this machine) behind it. */
export interface NodeCredentials {
  readonly client: ResourceClient;
  readonly kubeconfig: string;
}

/** Where a node's identity comes from; undefined when it has none and cannot get one. */
export interface NodeIdentity {
  obtain(signal?: AbortSignal): Promise<NodeCredentials | undefined>;
}

/** An identity made elsewhere (`mco node create --node-kubeconfig`, tests). */
export function fixedIdentity(credentials: NodeCredentials): NodeIdentity {
  return { obtain: () => Promise.resolve(credentials) };
}

export interface KubeletCredentialsOptions {
  readonly nodeName: string;
  /** The node's files (its root). */
  readonly files: NodeFiles;
  /** A client for the kubeconfig at this path on this machine. */
  readonly clientFor: (kubeconfigPath: string) => ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  /** How long one wait for the CSR lasts before it is read again (and the wait logged). */
  readonly pollMs?: number;
}

interface KubeconfigDoc {
  'current-context'?: string;
  contexts?: { name?: string; context?: { cluster?: string; user?: string } }[];
  clusters?: {
    name?: string;
    cluster?: { server?: string; 'certificate-authority-data'?: string };
  }[];
  users?: { name?: string; user?: { 'client-certificate-data'?: string } }[];
}

function currentEntries(text: string): {
  cluster?: { server?: string; 'certificate-authority-data'?: string };
  user?: { 'client-certificate-data'?: string };
} {
  const doc = (parse(text) as KubeconfigDoc | null) ?? {};
  const context = (doc.contexts ?? []).find((c) => c.name === doc['current-context'])?.context;
  const cluster = (doc.clusters ?? []).find((c) => c.name === context?.cluster)?.cluster;
  const user = (doc.users ?? []).find((u) => u.name === context?.user)?.user;
  return { ...(cluster === undefined ? {} : { cluster }), ...(user === undefined ? {} : { user }) };
}

const decoder = new TextDecoder();
const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** The kubeconfig the kubelet writes after bootstrapping, with the credentials inline. */
function kubeletKubeconfig(o: {
  readonly server: string;
  readonly caData: string;
  readonly certificatePem: string;
  readonly keyPem: string;
}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'default-cluster',
        cluster: {
          server: o.server,
          ...(o.caData === '' ? {} : { 'certificate-authority-data': o.caData }),
        },
      },
    ],
    users: [
      {
        name: 'default-auth',
        user: {
          'client-certificate-data': b64(o.certificatePem),
          'client-key-data': b64(o.keyPem),
        },
      },
    ],
    contexts: [
      {
        name: 'default-context',
        context: { cluster: 'default-cluster', user: 'default-auth', namespace: 'default' },
      },
    ],
    'current-context': 'default-context',
  });
}

/** A CSR (PEM) for `key`, as the kubelet makes it: ECDSA with SHA-256, the node subject, no SANs. */
async function certificateRequestPem(keyPem: string, commonName: string): Promise<string> {
  const key = createPrivateKey(keyPem);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  const privateKey = await webcrypto.subtle.importKey(
    'pkcs8',
    key.export({ type: 'pkcs8', format: 'der' }),
    algorithm,
    false,
    ['sign'],
  );
  const publicKey = await webcrypto.subtle.importKey(
    'spki',
    createPublicKey(key).export({ type: 'spki', format: 'der' }),
    algorithm,
    true,
    ['verify'],
  );
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: new x509.Name([{ O: [...KubeletOrganizations] }, { CN: [commonName] }]),
    keys: { privateKey, publicKey },
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
  });
  return `${request.toString('pem')}\n`;
}

export class KubeletCredentials implements NodeIdentity {
  readonly #o: KubeletCredentialsOptions;

  constructor(options: KubeletCredentialsOptions) {
    this.#o = options;
  }

  get #files(): NodeFiles {
    return this.#o.files;
  }

  async obtain(signal?: AbortSignal): Promise<NodeCredentials | undefined> {
    const kubeconfig = this.#files.hostPath(KubeletKubeconfigPath);
    const current = await this.#files.read(KubeletKubeconfigPath);
    if (current !== undefined) {
      const problem = this.#certificateProblem(decoder.decode(current));
      if (problem === undefined) return { client: this.#o.clientFor(kubeconfig), kubeconfig };
      this.#o.log.warn('the kubelet kubeconfig cannot be used; bootstrapping again', {
        path: KubeletKubeconfigPath,
        reason: problem,
      });
    }
    const bootstrap = await this.#files.read(BootstrapKubeconfigPath);
    if (bootstrap === undefined) return undefined;
    const { cluster } = currentEntries(decoder.decode(bootstrap));
    const server = cluster?.server;
    if (server === undefined)
      throw new Error(`${BootstrapKubeconfigPath} names no server in its current context`);
    const client = this.#o.clientFor(this.#files.hostPath(BootstrapKubeconfigPath));
    const { certificatePem, keyPem } = await this.#bootstrap(client, signal);
    await this.#files.writeAtomic(
      KubeletClientPemPath,
      new TextEncoder().encode(certificatePem + keyPem),
      {
        mode: 0o600,
      },
    );
    const text = kubeletKubeconfig({
      server,
      caData: cluster?.['certificate-authority-data'] ?? '',
      certificatePem,
      keyPem,
    });
    await this.#files.writeAtomic(KubeletKubeconfigPath, new TextEncoder().encode(text), {
      mode: 0o600,
    });
    await this.#files.remove(KubeletKeyPath);
    this.#o.log.info('wrote the kubelet kubeconfig', { path: KubeletKubeconfigPath });
    return { client: this.#o.clientFor(kubeconfig), kubeconfig };
  }

  /** Why the kubeconfig's client certificate is no good now, if it is not. */
  #certificateProblem(text: string): string | undefined {
    try {
      const data = currentEntries(text).user?.['client-certificate-data'];
      if (data === undefined) return 'no client-certificate-data';
      const cert = new X509Certificate(Buffer.from(data, 'base64'));
      const now = this.#o.clock.now();
      if (now > Date.parse(cert.validTo)) return `the certificate expired at ${cert.validTo}`;
      if (now < Date.parse(cert.validFrom))
        return `the certificate is valid from ${cert.validFrom}`;
      return undefined;
    } catch (e) {
      return errorText(e);
    }
  }

  /** The key waiting for its certificate, or a new one (saved before it is used). */
  async #key(): Promise<string> {
    const saved = await this.#files.read(KubeletKeyPath);
    if (saved !== undefined) {
      const pem = decoder.decode(saved);
      try {
        createPrivateKey(pem);
        return pem;
      } catch {
        this.#o.log.warn('replacing an unreadable kubelet key', { path: KubeletKeyPath });
      }
    }
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const pem = privateKey.export({ type: 'sec1', format: 'pem' }).toString();
    await this.#files.writeAtomic(KubeletKeyPath, new TextEncoder().encode(pem), { mode: 0o600 });
    return pem;
  }

  async #bootstrap(
    client: ResourceClient,
    signal?: AbortSignal,
  ): Promise<{ certificatePem: string; keyPem: string }> {
    const keyPem = await this.#key();
    const commonName = kubeletCommonName(this.#o.nodeName);
    const requestPem = await certificateRequestPem(keyPem, commonName);
    const parsed = parseCertificateRequestPem(requestPem);
    if (!parsed.ok) throw new Error(`the kubelet's own request does not parse: ${parsed.error}`);
    const name = kubeletCsrName(
      parsed.value.publicKey,
      commonName,
      KubeletOrganizations,
      KubeletClientUsages,
    );
    let csr: CertificateSigningRequest;
    try {
      csr = await client.create(
        Resources.certificateSigningRequest,
        kubeletClientCsr(name, requestPem),
      );
      this.#o.log.info('requested a client certificate', { csr: name, user: commonName });
    } catch (e) {
      if (!isStatusError(e, 'AlreadyExists')) throw e;
      csr = await client.get<CertificateSigningRequest>(Resources.certificateSigningRequest, name);
      const existing = parseCertificateRequestPem(
        Buffer.from(csr.spec.request, 'base64').toString('latin1'),
      );
      const compatible = existing.ok
        ? compatibleCsr(csr, existing.value, { commonName, publicKey: parsed.value.publicKey })
        : existing;
      if (!compatible.ok) throw new Error(`retrieved csr is not compatible: ${compatible.error}`);
      this.#o.log.info('csr for this node already exists, reusing', { csr: name });
    }
    const certificatePem = await this.#waitForCertificate(client, csr, signal);
    return { certificatePem, keyPem };
  }

  async #waitForCertificate(
    client: ResourceClient,
    created: CertificateSigningRequest,
    signal?: AbortSignal,
  ): Promise<string> {
    const name = created.metadata.name ?? '';
    const uid = created.metadata.uid;
    const pollMs = this.#o.pollMs ?? 30_000;
    const started = this.#o.clock.now();
    for (let csr = created; ;) {
      if (uid !== undefined && csr.metadata.uid !== uid)
        throw new Error(`csr ${name} was deleted and created again while this node waited`);
      const outcome = csrOutcome(csr);
      if (outcome.kind === 'issued') {
        this.#o.log.info('client certificate issued', { csr: name });
        return outcome.certificatePem;
      }
      if (outcome.kind === 'refused') throw new Error(outcome.message);
      if (signal?.aborted === true) throw new Error('stopped while waiting for the certificate');
      await this.#watchFor({
        client,
        name,
        resourceVersion: csr.metadata.resourceVersion,
        pollMs,
        signal,
      });
      csr = await client.get<CertificateSigningRequest>(Resources.certificateSigningRequest, name);
      if (csrOutcome(csr).kind === 'pending')
        this.#o.log.info('waiting for the client certificate to be approved and signed', {
          csr: name,
          waitedSeconds: Math.round((this.#o.clock.now() - started) / 1000),
        });
    }
  }

  /**
   * Watches the CSR until it is decided, the poll period ends or `signal` aborts. A watch that
   * fails or ends early still waits out the period, so a server that refuses watches is asked
   * again once a period, not in a loop.
   */
  async #watchFor({
    client,
    name,
    resourceVersion,
    pollMs,
    signal,
  }: {
    readonly client: ResourceClient;
    readonly name: string;
    readonly resourceVersion: string | undefined;
    readonly pollMs: number;
    readonly signal?: AbortSignal | undefined;
  }): Promise<void> {
    const stop = new AbortController();
    const onAbort = (): void => {
      stop.abort();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const period = this.#o.clock.sleep(pollMs, stop.signal).then(onAbort, () => undefined);
    const seen = { decided: false };
    try {
      await client.watch<CertificateSigningRequest>(
        Resources.certificateSigningRequest,
        {
          fieldSelector: `metadata.name=${name}`,
          ...(resourceVersion === undefined ? {} : { resourceVersion }),
          timeoutSeconds: Math.max(1, Math.ceil(pollMs / 1000)),
          signal: stop.signal,
        },
        (event) => {
          if (event.type === 'ERROR' || event.type === 'BOOKMARK') return;
          if (csrOutcome(event.object).kind === 'pending') return;
          seen.decided = true;
          stop.abort();
        },
      );
    } catch (e) {
      this.#o.log.debug('watching the csr failed; reading it again after the period', {
        csr: name,
        error: String(e),
      });
    }
    if (!seen.decided) await period;
    stop.abort();
    signal?.removeEventListener('abort', onAbort);
    await period;
  }
}

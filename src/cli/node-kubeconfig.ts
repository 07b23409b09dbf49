/**
 * `mco apiserver node-kubeconfig`: an administrator's node identity, issued on the spot as
 * `kubeadm kubeconfig user` does: a fresh ECDSA P-256 key and a client certificate
 * (`CN=system:node:<name>`, `O=system:nodes`) signed with the cluster CA the server keeps in its
 * PKI folder, written into a kubeconfig with the server and CA of the admin one. Nodes that join
 * on their own ask for the same certificate through the CSR API instead (TLS bootstrapping).
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeletClientUsages } from '../api/certificates/v1/certificate-signing-request.js';
import { loadCertificateAuthority, PkiFile } from '../adapters/pki.js';
import { nodeIdentity } from '../apiserver/auth/identities.js';
import { kubeconfigFileName } from '../shell/apiserver-credentials.js';
import { CliError } from '../shell/cli-io.js';
import { formatKubeconfig, readKubeconfig } from '../shell/kubeconfig.js';
import { errorText } from '../lib/error-text.js';

export interface NodeKubeconfigOptions {
  readonly dataDir: string;
  /** Where the CA lives (default: dataDir), as `mco apiserver --pki-dir`. */
  readonly pkiDir?: string;
  readonly node: string;
  /** The server URL to write into the kubeconfig (default: the admin kubeconfig's). */
  readonly server?: string;
  /** Milliseconds since the epoch. */
  readonly now: number;
}

/** One year, kube-controller-manager's default `--cluster-signing-duration`. */
const Validity = 365 * 86_400_000;
const NodeName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A new EC P-256 key: the PEM (SEC1, as the kubelet writes it) and its DER public key. */
export function newEcKey(): { readonly keyPem: string; readonly publicKey: Uint8Array } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    keyPem: privateKey.export({ type: 'sec1', format: 'pem' }).toString(),
    publicKey: new Uint8Array(publicKey.export({ type: 'spki', format: 'der' })),
  };
}

/** Issues the identity and returns the node's kubeconfig text. */
export async function issueNodeKubeconfig(options: NodeKubeconfigOptions): Promise<string> {
  if (options.node.length > 253 || !NodeName.test(options.node))
    throw new CliError(
      `--node ${JSON.stringify(options.node)}: expected a DNS subdomain name (lowercase letters, digits, '-' and '.')`,
    );
  const adminPath = join(options.dataDir, kubeconfigFileName('admin'));
  let text: string;
  try {
    text = readFileSync(adminPath, 'utf8');
  } catch (e) {
    throw new CliError(
      `cannot read ${adminPath}: has \`mco apiserver --data-dir ${options.dataDir}\` run?`,
      { cause: e },
    );
  }
  const admin = readKubeconfig(text);
  if (admin === undefined)
    throw new CliError(`${adminPath}: no server, certificate-authority-data or token`);
  const pki = options.pkiDir ?? options.dataDir;
  let ca;
  try {
    ca = await loadCertificateAuthority(join(pki, PkiFile.caCert), join(pki, PkiFile.caKey));
  } catch (e) {
    throw new CliError(`cannot load the cluster CA from ${pki}: ${errorText(e)}`, { cause: e });
  }
  const user = nodeIdentity(options.node);
  const key = newEcKey();
  const subject = new x509.Name([{ O: [...user.groups] }, { CN: [user.name] }]);
  const certificatePem = await ca.signClientCertificate({
    publicKey: key.publicKey,
    subject: new Uint8Array(subject.toArrayBuffer()),
    usages: KubeletClientUsages,
    ttlMs: Validity,
    now: options.now,
  });
  return formatKubeconfig({
    server: options.server ?? admin.server,
    caPem: admin.caPem,
    userName: user.name,
    clientCertificatePem: certificatePem,
    clientKeyPem: key.keyPem,
  });
}

/**
 * Kubeconfig files for the embedded API server: HTTPS with the CA inlined
 * (`certificate-authority-data`) and a bearer token or a client certificate and key
 * (`client-certificate-data`, `client-key-data`), the shapes kubectl and @kubernetes/client-node
 * both accept. The reader takes what `mco apiserver node-kubeconfig` needs from the admin one.
 */
import { parse, stringify } from 'yaml';

export interface KubeconfigParams {
  /** `https://host:port`. */
  readonly server: string;
  readonly caPem: string;
  /** The user entry's name, e.g. `admin` or `system:node:worker-0`. */
  readonly userName: string;
  readonly namespace?: string;
}

/** A bearer token, or a client certificate (PEM) and its key. */
export type KubeconfigUser =
  | { readonly token: string }
  | { readonly clientCertificatePem: string; readonly clientKeyPem: string };

const b64 = (text: string): string => Buffer.from(text).toString('base64');

function userEntry(u: KubeconfigUser): Record<string, string> {
  if ('token' in u) return { token: u.token };
  return {
    'client-certificate-data': b64(u.clientCertificatePem),
    'client-key-data': b64(u.clientKeyPem),
  };
}

const KubeconfigClusterName = 'mco';

export function formatKubeconfig(p: KubeconfigParams & KubeconfigUser): string {
  const context = `${p.userName}@${KubeconfigClusterName}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: KubeconfigClusterName,
        cluster: {
          server: p.server,
          'certificate-authority-data': b64(p.caPem),
        },
      },
    ],
    users: [{ name: p.userName, user: userEntry(p) }],
    contexts: [
      {
        name: context,
        context: {
          cluster: KubeconfigClusterName,
          user: p.userName,
          namespace: p.namespace ?? 'default',
        },
      },
    ],
    'current-context': context,
    preferences: {},
  });
}

export interface KubeconfigCredentials {
  readonly server: string;
  readonly caPem: string;
  readonly token: string;
}

interface KubeconfigShape {
  'current-context'?: string;
  contexts?: { name?: string; context?: { cluster?: string; user?: string } }[];
  clusters?: {
    name?: string;
    cluster?: { server?: string; 'certificate-authority-data'?: string };
  }[];
  users?: { name?: string; user?: { token?: string } }[];
}

/** Server, CA and token of the current context; undefined if the file lacks any of them. */
export function readKubeconfig(text: string): KubeconfigCredentials | undefined {
  const doc = (parse(text) as KubeconfigShape | null) ?? {};
  const context = (doc.contexts ?? []).find((c) => c.name === doc['current-context'])?.context;
  const cluster = (doc.clusters ?? []).find((c) => c.name === context?.cluster)?.cluster;
  const user = (doc.users ?? []).find((u) => u.name === context?.user)?.user;
  const server = cluster?.server;
  const caData = cluster?.['certificate-authority-data'];
  if (server === undefined || caData === undefined || user?.token === undefined) return undefined;
  return { server, caPem: Buffer.from(caData, 'base64').toString('utf8'), token: user.token };
}

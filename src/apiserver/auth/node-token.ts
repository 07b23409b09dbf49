/**
 * Node identities minted at runtime. Like Kubernetes bootstrap tokens, a node token is
 * `<id>.<secret>` and lives in a Secret in kube-system (`node-token-<id>`, type
 * `machineconfiguration.openshift.io/node-token`) that names the node it speaks for. Because the
 * authenticator reads the Secret through the ResourceStore on each request, a token works as soon
 * as the Secret is created and stops working when it is deleted: no restart, no reload.
 */
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../resource-store.js';

export const NodeTokenSecretType = 'machineconfiguration.openshift.io/node-token';
export const NodeTokenNamespace = 'kube-system';
const SecretNamePrefix = 'node-token-';

/** Same alphabet and lengths as bootstrap tokens: `[a-z0-9]{6}.[a-z0-9]{16}`. */
const TokenPattern = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const Alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

export interface NodeToken {
  readonly id: string;
  readonly secret: string;
}

export function formatNodeToken(token: NodeToken): string {
  return `${token.id}.${token.secret}`;
}

/** The id and secret of a bearer token shaped like a node token, else undefined. */
export function parseNodeToken(bearer: string): NodeToken | undefined {
  const m = TokenPattern.exec(bearer);
  if (m?.[1] === undefined || m[2] === undefined) return undefined;
  return { id: m[1], secret: m[2] };
}

function randomString(length: number): string {
  // 252 is the largest multiple of 36 below 256: rejecting bytes above it keeps the draw uniform.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 252 && out.length < length) out += Alphabet.charAt(byte % Alphabet.length);
    }
  }
  return out;
}

export function generateNodeToken(): NodeToken {
  return { id: randomString(6), secret: randomString(16) };
}

export function nodeTokenSecretName(id: string): string {
  return `${SecretNamePrefix}${id}`;
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** The Secret that makes `token` authenticate as `system:node:<nodeName>`. */
export function nodeTokenSecret(nodeName: string, token: NodeToken): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: nodeTokenSecretName(token.id), namespace: NodeTokenNamespace },
    type: NodeTokenSecretType,
    data: {
      'token-id': b64(token.id),
      'token-secret': b64(token.secret),
      'node-name': b64(nodeName),
    },
  };
}

/** What a stored node-token Secret says: its secret half and the node, if it is well formed. */
export interface NodeTokenRecord {
  readonly id: string;
  readonly secret: string;
  readonly nodeName: string;
}

function field(secret: KubeObject, key: string): string | undefined {
  const data = secret['data'] as Record<string, unknown> | undefined;
  const encoded = data?.[key];
  if (typeof encoded === 'string') return Buffer.from(encoded, 'base64').toString('utf8');
  const plain = (secret['stringData'] as Record<string, unknown> | undefined)?.[key];
  return typeof plain === 'string' ? plain : undefined;
}

export function readNodeTokenSecret(secret: KubeObject): NodeTokenRecord | undefined {
  if (secret['type'] !== NodeTokenSecretType) return undefined;
  const id = field(secret, 'token-id');
  const tokenSecret = field(secret, 'token-secret');
  const nodeName = field(secret, 'node-name');
  if (id === undefined || tokenSecret === undefined || nodeName === undefined || nodeName === '') {
    return undefined;
  }
  if (secret.metadata.name !== nodeTokenSecretName(id)) return undefined;
  return { id, secret: tokenSecret, nodeName };
}

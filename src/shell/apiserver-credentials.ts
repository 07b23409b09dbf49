/**
 * The credentials `mco apiserver` keeps in its data directory: `tokens.csv` (kube-apiserver's
 * token-file format, mode 0600) with one token per built-in identity, created on first start and
 * completed if an identity is missing; `sa.key`, which signs ServiceAccount tokens; and one
 * kubeconfig per identity (`admin.kubeconfig`,
 * `controller.kubeconfig`, ...; mode 0600), rewritten on every start because the address may change.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  SystemIdentity,
  SystemIdentityNames,
  type SystemIdentityName,
} from '../apiserver/auth/identities.js';
import {
  describeTokenFileError,
  formatTokenFile,
  parseTokenFile,
  type StaticToken,
} from '../apiserver/auth/token-file.js';
import { CliError } from './cli-io.js';
import { formatKubeconfig } from './kubeconfig.js';

const TokenFileName = 'tokens.csv';
/** The key ServiceAccount tokens are signed with (kube-apiserver's `--service-account-signing-key-file`). */
const ServiceAccountKeyFileName = 'sa.key';

export function kubeconfigFileName(identity: SystemIdentityName): string {
  return `${identity}.kubeconfig`;
}

/** Writes through a temporary file created with `mode`, then renames it into place. */
export function writePrivateFile(path: string, content: string, mode = 0o600): void {
  const tmp = `${path}.tmp-${randomBytes(6).toString('hex')}`;
  writeFileSync(tmp, content, { mode });
  renameSync(tmp, path);
}

function newToken(identity: SystemIdentityName): StaticToken {
  return {
    token: randomBytes(32).toString('base64url'),
    uid: randomUUID(),
    user: SystemIdentity[identity],
  };
}

export interface Credentials {
  readonly tokens: readonly StaticToken[];
  /** The token of each built-in identity. */
  readonly byIdentity: ReadonlyMap<SystemIdentityName, string>;
}

/** Loads `tokens.csv`, adding a token for every built-in identity it lacks. */
export function ensureCredentials(dir: string): Credentials {
  const path = join(dir, TokenFileName);
  let tokens: StaticToken[] = [];
  if (existsSync(path)) {
    const parsed = parseTokenFile(readFileSync(path, 'utf8'));
    if (!parsed.ok) throw new CliError(`${path}: ${describeTokenFileError(parsed.error)}`);
    tokens = parsed.value;
  }
  const byIdentity = new Map<SystemIdentityName, string>();
  let added = false;
  for (const identity of SystemIdentityNames) {
    let entry = tokens.find((t) => t.user.name === SystemIdentity[identity].name);
    if (entry === undefined) {
      entry = newToken(identity);
      tokens.push(entry);
      added = true;
    }
    byIdentity.set(identity, entry.token);
  }
  if (added) writePrivateFile(path, formatTokenFile(tokens));
  return { tokens, byIdentity };
}

/** Writes `<identity>.kubeconfig` for every built-in identity. */
export function writeKubeconfigs(
  dir: string,
  server: string,
  caPem: string,
  credentials: Credentials,
): void {
  for (const [identity, token] of credentials.byIdentity) {
    const kubeconfig = formatKubeconfig({ server, caPem, userName: identity, token });
    writePrivateFile(join(dir, kubeconfigFileName(identity)), kubeconfig);
  }
}

/** Loads `sa.key`, making an ECDSA P-256 key (PKCS#8 PEM, mode 0600) on first start. */
export function ensureServiceAccountKey(dir: string): string {
  const path = join(dir, ServiceAccountKeyFileName);
  if (existsSync(path)) return readFileSync(path, 'utf8');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  writePrivateFile(path, pem);
  return pem;
}

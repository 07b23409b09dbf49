/**
 * Where a registry client's trust and credentials come from: an auth file in containers-auth.json
 * format, a CA bundle, and certs.d folders. A node uses its own (nodeRegistrySettings): the
 * kubelet's pull secret `/var/lib/kubelet/config.json` and `/etc/docker/certs.d`,
 * `/etc/containers/certs.d` (where the daemon's certificate writer puts image registry CAs).
 */
import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import { NoAuth, parseAuthFile } from './registry-auth.js';
import { RegistryClient } from './registry-client.js';

export interface RegistrySettings {
  readonly authFile?: string;
  /** A missing auth file is no credentials, not an error (a node's default pull secret). */
  readonly authFileOptional?: boolean;
  readonly caFile?: string;
  readonly certDirs?: readonly string[];
  readonly timeoutMs?: number;
}

/** A client with the settings' credentials and trust (files read now). */
export async function createRegistryClient(s: RegistrySettings): Promise<RegistryClient> {
  let auth = NoAuth;
  if (s.authFile !== undefined) {
    let text: string | undefined;
    try {
      text = await readFile(s.authFile, 'utf8');
    } catch (e) {
      if (!(s.authFileOptional === true && (e as NodeJS.ErrnoException).code === 'ENOENT'))
        throw new Error(`reading auth file ${s.authFile}: ${(e as Error).message}`, { cause: e });
    }
    if (text !== undefined) auth = parseAuthFile(text, s.authFile);
  }
  let ca: string | undefined;
  if (s.caFile !== undefined) {
    try {
      ca = await readFile(s.caFile, 'utf8');
    } catch (e) {
      throw new Error(`reading CA file ${s.caFile}: ${(e as Error).message}`, { cause: e });
    }
  }
  return new RegistryClient({
    auth,
    ...(ca === undefined ? {} : { ca }),
    ...(s.certDirs === undefined ? {} : { certDirs: s.certDirs }),
    ...(s.timeoutMs === undefined ? {} : { timeoutMs: s.timeoutMs }),
  });
}

/** The settings of a node whose `/` is `root`. */
export function nodeRegistrySettings(root: string): RegistrySettings {
  return {
    authFile: posix.join(root, 'var/lib/kubelet/config.json'),
    authFileOptional: true,
    certDirs: [posix.join(root, 'etc/docker/certs.d'), posix.join(root, 'etc/containers/certs.d')],
  };
}

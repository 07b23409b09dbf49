/**
 * SSH keys and password hashes for the core user (upstream updateSSHKeys / SetPasswordHash,
 * docs/reference/daemon.md §7.6). Reconcilability already guaranteed the users are all `core`; every key
 * of every user goes to core's Ignition key fragment.
 */
import type { IgnitionConfig } from '../../ignition/types.js';
import { AuthorizedKeysFragmentPath } from './node-paths.js';

/** The SSH key fragment and how it is written: dir 0700 created as core, file 0600 core:core. */
export const AuthorizedKeysFile = {
  path: AuthorizedKeysFragmentPath,
  directoryMode: 0o700,
  mode: 0o600,
} as const;

/** The fragment's bytes: each key followed by a newline, users and keys in config order. */
export function authorizedKeysContent(newIgn: IgnitionConfig): string {
  return (newIgn.passwd?.users ?? [])
    .flatMap((u) => u.sshAuthorizedKeys ?? [])
    .map((k) => `${k}\n`)
    .join('');
}

export interface PasswordPlan {
  /** Users of the old config absent from the new one: `usermod -p "" <user>`. */
  readonly clear: readonly string[];
  /** Each new user's hash (`*`, i.e. locked, when unset or empty): `usermod -p <hash> <user>`. */
  readonly set: readonly { readonly user: string; readonly hash: string }[];
}

const LockedPasswordHash = '*';

export function planPasswords(oldIgn: IgnitionConfig, newIgn: IgnitionConfig): PasswordPlan {
  const newUsers = newIgn.passwd?.users ?? [];
  const newNames = new Set(newUsers.map((u) => u.name));
  return {
    clear: (oldIgn.passwd?.users ?? []).filter((u) => !newNames.has(u.name)).map((u) => u.name),
    set: newUsers.map((u) => ({
      user: u.name,
      hash:
        u.passwordHash === undefined || u.passwordHash === '' ? LockedPasswordHash : u.passwordHash,
    })),
  };
}

/** Whether `usermod` must run: the hash in /etc/shadow (getent shadow) is not already this one. */
export function passwordNeedsUpdate(current: string | undefined, wanted: string): boolean {
  return current !== wanted;
}

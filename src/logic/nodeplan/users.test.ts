import { describe, expect, it } from 'vitest';
import { coreUser, ignition } from '../../../test/support/nodeplan-fixtures.js';
import {
  authorizedKeysContent,
  AuthorizedKeysFile,
  passwordNeedsUpdate,
  planPasswords,
} from './users.js';

describe('authorizedKeysContent', () => {
  it.each([
    [[], ''],
    [[coreUser('ssh-ed25519 AAA a')], 'ssh-ed25519 AAA a\n'],
    [[coreUser('k1', 'k2'), coreUser('k3')], 'k1\nk2\nk3\n'],
    [[{ name: 'core' }], ''],
  ])('%j → %j', (users, expected) => {
    expect(authorizedKeysContent(ignition({ users }))).toBe(expected);
  });

  it('is written to the Ignition fragment, 0600 in a 0700 directory', () => {
    expect(AuthorizedKeysFile).toEqual({
      path: '/home/core/.ssh/authorized_keys.d/ignition',
      directoryMode: 0o700,
      mode: 0o600,
    });
  });
});

describe('planPasswords', () => {
  it('locks users without a hash, sets given hashes, clears users that disappeared', () => {
    // GIVEN old users core and legacy, new user core with a hash
    const oldIgn = ignition({ users: [{ name: 'core' }, { name: 'legacy' }] });
    const withHash = ignition({ users: [{ name: 'core', passwordHash: '$6$x' }] });
    // THEN
    expect(planPasswords(oldIgn, withHash)).toEqual({
      clear: ['legacy'],
      set: [{ user: 'core', hash: '$6$x' }],
    });
    expect(
      planPasswords(withHash, ignition({ users: [{ name: 'core', passwordHash: '' }] })),
    ).toEqual({
      clear: [],
      set: [{ user: 'core', hash: '*' }],
    });
    expect(planPasswords(withHash, ignition())).toEqual({ clear: ['core'], set: [] });
  });

  it('skips usermod when /etc/shadow already has the hash', () => {
    expect(passwordNeedsUpdate('*', '*')).toBe(false);
    expect(passwordNeedsUpdate('!!', '*')).toBe(true);
    expect(passwordNeedsUpdate(undefined, '*')).toBe(true);
  });
});

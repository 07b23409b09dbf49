/**
 * Extension packages: upstream's generateExtensionsArgs cases (docs/reference/extensions.md §4)
 * and the verification text after a reboot (docs/reference/extensions.md §5).
 */
import { describe, expect, it } from 'vitest';
import {
  extensionPackageArgs,
  installedExtensions,
  missingExtensionPackages,
  normalizedExtensions,
  unknownExtensions,
} from './extension-packages.js';

describe('generateExtensionsArgs', () => {
  const cases: readonly (readonly [string, string[], string[], string[]])[] = [
    ['nothing installed, nothing asked', [], [], []],
    ['install one', [], ['usbguard'], ['--install', 'usbguard']],
    [
      'install sorted packages of two extensions',
      [],
      ['usbguard', 'kerberos'],
      ['--install', 'krb5-workstation', '--install', 'libkadm5', '--install', 'usbguard'],
    ],
    ['already installed: nothing', ['usbguard'], ['usbguard'], []],
    ['removed extension: uninstall', ['usbguard'], [], ['--uninstall', 'usbguard']],
    [
      'swap: install first, then uninstall',
      ['usbguard'],
      ['sysstat'],
      ['--install', 'sysstat', '--uninstall', 'usbguard'],
    ],
    ['a user package outside the allowlist is never touched', ['htop', 'vim'], [], []],
    [
      'half an extension installed: only the missing package',
      ['krb5-workstation'],
      ['kerberos'],
      ['--install', 'libkadm5'],
    ],
    ['duplicates in the config install once', [], ['sysstat', 'sysstat'], ['--install', 'sysstat']],
  ];
  it.each(cases)('%s', (_, installed, extensions, args) => {
    expect(extensionPackageArgs(new Set(installed), extensions)).toEqual(args);
  });
});

describe('verification and names', () => {
  it('lists each missing package with its extension, as upstream prints them', () => {
    expect(
      missingExtensionPackages(new Set(['krb5-workstation']), ['kerberos', 'usbguard']),
    ).toEqual(['libkadm5 (from extension kerberos)', 'usbguard (from extension usbguard)']);
    expect(missingExtensionPackages(new Set(['usbguard']), ['usbguard'])).toEqual([]);
  });
  it('an extension counts as installed only with all its packages', () => {
    expect(installedExtensions(new Set(['krb5-workstation', 'usbguard', 'htop']))).toEqual([
      'usbguard',
    ]);
  });
  it('unknown names, including path-like ones, are found; lists are de-duplicated and sorted', () => {
    expect(unknownExtensions(['usbguard', '../x', 'constructor', 'toString'])).toEqual([
      '../x',
      'constructor',
      'toString',
    ]);
    expect(normalizedExtensions(['usbguard', 'kerberos', 'usbguard'])).toEqual([
      'kerberos',
      'usbguard',
    ]);
  });
});

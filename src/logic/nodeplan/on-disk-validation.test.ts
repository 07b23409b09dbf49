import { describe, expect, it } from 'vitest';
import { ignFile, nodeConfig } from '../../../test/support/nodeplan-fixtures.js';
import { goFileModeFromStat, goFileModeString, goFileModeTriple } from './go-file-mode.js';
import {
  describeOnDiskMismatch,
  describeOnDiskValidationFailure,
  driftWatchPaths,
  onDiskTargets,
  validateFilesAndUnits,
  validateOnDiskState,
  type ObservedPath,
  type ObservedState,
} from './on-disk-validation.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const file = (contents: string, mode = 0o644): ObservedPath => ({
  exists: true,
  kind: 'file',
  mode,
  contents: bytes(contents),
});

const expected = nodeConfig(
  'rendered-worker-1',
  {
    files: [
      ignFile('/etc/foo', 'foo\n'),
      ignFile('/etc/secret', 's', 0o600),
      ignFile('/etc/kubernetes/kubelet-ca.crt', 'ca'),
    ],
    units: [
      {
        name: 'app.service',
        contents: '[Unit]\n',
        enabled: true,
        dropins: [
          { name: '10-a.conf', contents: '[Service]\n' },
          { name: '20-empty.conf', contents: '' },
        ],
      },
      { name: 'masked.service', mask: true, contents: 'x' },
      { name: 'noop.service', enabled: true },
    ],
  },
  { osImageURL: 'quay.io/os@sha256:aaa', kernelArguments: ['nosmt', 'a=1 b=2'] },
);

/** A machine that matches `expected` exactly. */
function matching(): ObservedState {
  return {
    bootedImage: 'quay.io/os@sha256:aaa',
    kernelArguments: ['root=UUID=x', 'nosmt', 'a=1', 'b=2'],
    paths: new Map<string, ObservedPath>([
      ['/etc/foo', file('foo\n')],
      ['/etc/secret', file('s', 0o600)],
      ['/etc/systemd/system/app.service.d/10-a.conf', file('[Service]\n')],
      ['/etc/systemd/system/app.service', file('[Unit]\n')],
      [
        '/etc/systemd/system/masked.service',
        { exists: true, kind: 'symlink', mode: 0o777, realPath: '/dev/null' },
      ],
    ]),
    unitEnablement: new Map([['app.service', 'enabled']]),
  };
}

function withPath(path: string, o: ObservedPath | undefined): ObservedState {
  const m = matching();
  const paths = new Map(m.paths);
  if (o === undefined) paths.delete(path);
  else paths.set(path, o);
  return { ...m, paths };
}

function failure(observed: ObservedState): string {
  const r = validateOnDiskState(expected, observed);
  return r.ok ? 'ok' : describeOnDiskValidationFailure(expected.name, r.error);
}

describe('validateOnDiskState: docs/reference/daemon.md §7.7 messages', () => {
  it('passes on a matching machine', () => {
    expect(failure(matching())).toBe('ok');
  });

  const prefix = 'unexpected on-disk state validating against rendered-worker-1: ';

  it.each([
    [
      'booted image differs',
      { ...matching(), bootedImage: 'quay.io/os@sha256:bbb' },
      'expected target osImageURL "quay.io/os@sha256:aaa", have "quay.io/os@sha256:bbb"',
    ],
    [
      'kernel arguments missing',
      { ...matching(), kernelArguments: ['nosmt'] },
      'missing expected kernel arguments: [a=1 b=2]',
    ],
    [
      'file mode differs',
      withPath('/etc/foo', file('foo\n', 0o600)),
      'mode mismatch for file: "/etc/foo"; expected: -rw-r--r--/420/0644; received: -rw-------/384/0600',
    ],
    [
      'a directory where a file should be',
      withPath('/etc/foo', { exists: true, kind: 'directory', mode: 0o755 }),
      'mode mismatch for file: "/etc/foo"; expected: -rw-r--r--/420/0644; received: drwxr-xr-x/2147484141/020000000755',
    ],
    [
      'a setuid file',
      withPath('/etc/foo', file('foo\n', 0o4644)),
      'mode mismatch for file: "/etc/foo"; expected: -rw-r--r--/420/0644; received: urw-r--r--/8389028/040000644',
    ],
    [
      'file content differs',
      withPath('/etc/foo', file('bar\n')),
      'content mismatch for file "/etc/foo"',
    ],
    [
      'file missing',
      withPath('/etc/foo', undefined),
      'could not stat file "/etc/foo": lstat /etc/foo: no such file or directory',
    ],
    [
      'dropin content differs',
      withPath('/etc/systemd/system/app.service.d/10-a.conf', file('x')),
      'content mismatch for file "/etc/systemd/system/app.service.d/10-a.conf"',
    ],
    [
      'unit content differs',
      withPath('/etc/systemd/system/app.service', file('[Unit]\nX=1\n')),
      'content mismatch for file "/etc/systemd/system/app.service"',
    ],
    [
      'masked unit points elsewhere',
      withPath('/etc/systemd/system/masked.service', {
        exists: true,
        kind: 'file',
        mode: 0o644,
        realPath: '/etc/systemd/system/masked.service',
      }),
      'state validation: invalid unit masked setting. path: "/etc/systemd/system/masked.service"; expected: /dev/null; received: /etc/systemd/system/masked.service',
    ],
    [
      'masked unit missing',
      withPath('/etc/systemd/system/masked.service', undefined),
      'state validation: error while evaluation symlink for path "/etc/systemd/system/masked.service": lstat /etc/systemd/system/masked.service: no such file or directory',
    ],
    [
      'unit not enabled',
      { ...matching(), unitEnablement: new Map([['app.service', 'disabled']]) },
      'unit "app.service" expected enabled=true, but systemd reports "disabled"',
    ],
  ] as const)('%s', (_name, observed, message) => {
    // GIVEN a machine with one difference
    // WHEN validated
    // THEN the first mismatch is reported with upstream's text, wrapped
    expect(failure(observed)).toBe(prefix + message);
  });

  it('reports the OS before files, and files before units', () => {
    const m = withPath('/etc/foo', file('bar\n'));
    expect(failure({ ...m, bootedImage: 'other' })).toMatch(/expected target osImageURL/);
    expect(failure({ ...m, unitEnablement: new Map([['app.service', 'disabled']]) })).toBe(
      `${prefix}content mismatch for file "/etc/foo"`,
    );
  });

  it('accepts a leftover zero-length dropin for an empty one, and skips the OS when not observed', () => {
    const m = withPath('/etc/systemd/system/app.service.d/20-empty.conf', file(''));
    expect(failure({ paths: m.paths, unitEnablement: m.unitEnablement })).toBe('ok');
    expect(failure(withPath('/etc/systemd/system/app.service.d/20-empty.conf', file('junk')))).toBe(
      `${prefix}content mismatch for file "/etc/systemd/system/app.service.d/20-empty.conf"`,
    );
  });

  it('adds the finalize failure as a possible root cause', () => {
    const r = validateOnDiskState(expected, { ...matching(), bootedImage: 'b' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(describeOnDiskValidationFailure('x', r.error, 'error: failed to finalize')).toBe(
      'unexpected on-disk state validating against x: expected target osImageURL "quay.io/os@sha256:aaa", have "b"; possible root cause: error: failed to finalize',
    );
  });
});

describe('extensions after the reboot (upstream validateExtensions)', () => {
  const withExtensions = { ...expected, extensions: ['usbguard', 'kerberos'] };
  const check = (booted: readonly string[] | undefined) => {
    const observed =
      booted === undefined ? matching() : { ...matching(), bootedExtensions: booted };
    const r = validateOnDiskState(withExtensions, observed);
    return r.ok ? 'ok' : describeOnDiskMismatch(r.error);
  };
  it('a deployment without an asked-for extension fails with the missing packages', () => {
    expect(check(['usbguard'])).toBe(
      'extension packages not installed correctly: [krb5-workstation (from extension kerberos) libkadm5 (from extension kerberos)]',
    );
    expect(check([])).toMatch(/usbguard \(from extension usbguard\)/);
  });
  it('passes with them all, and is skipped on hosts that cannot tell', () => {
    expect(check(['kerberos', 'usbguard'])).toBe('ok');
    expect(check(undefined)).toBe('ok');
  });
});

describe('validateFilesAndUnits (drift monitor)', () => {
  it('ignores the OS and the certificate writer’s files', () => {
    const r = validateFilesAndUnits(expected.ignition, {
      ...matching(),
      bootedImage: 'other',
      kernelArguments: [],
    });
    expect(r).toEqual({ ok: true, value: undefined });
  });

  it('reports the raw mismatch text', () => {
    const r = validateFilesAndUnits(expected.ignition, withPath('/etc/foo', file('drift')));
    expect(r.ok ? 'ok' : describeOnDiskMismatch(r.error)).toBe(
      'content mismatch for file "/etc/foo"',
    );
  });
});

describe('onDiskTargets / driftWatchPaths', () => {
  it('lists what to read: files (not certs), dropins, units with contents; units to ask is-enabled', () => {
    expect(onDiskTargets(expected.ignition)).toEqual({
      paths: [
        '/etc/foo',
        '/etc/secret',
        '/etc/systemd/system/app.service.d/10-a.conf',
        '/etc/systemd/system/app.service.d/20-empty.conf',
        '/etc/systemd/system/app.service',
        '/etc/systemd/system/masked.service',
      ],
      units: ['app.service'],
    });
  });

  it('watches the existing managed paths through their directories', () => {
    const existing = new Set([
      '/etc/foo',
      '/etc/systemd/system/app.service',
      '/etc/systemd/system/app.service.d/10-a.conf',
    ]);
    expect(driftWatchPaths(expected.ignition, (p) => existing.has(p))).toEqual({
      paths: [
        '/etc/foo',
        '/etc/systemd/system/app.service',
        '/etc/systemd/system/app.service.d/10-a.conf',
      ],
      directories: ['/etc', '/etc/systemd/system', '/etc/systemd/system/app.service.d'],
    });
  });
});

describe('Go FileMode formatting', () => {
  it.each([
    [0o644, '-rw-r--r--/420/0644'],
    [0o755, '-rwxr-xr-x/493/0755'],
    [0, '----------/0/0'],
    [goFileModeFromStat('symlink', 0o777), 'Lrwxrwxrwx/134218239/01000000777'],
    [goFileModeFromStat('file', 0o1777), 'trwxrwxrwx/1049087/04000777'],
  ])('%d → %s', (mode, expectedText) => {
    expect(goFileModeTriple(mode)).toBe(expectedText);
  });

  it('a mode bit Go has no letter for is shown only in numbers', () => {
    expect(goFileModeString(0o4755)).toBe('-rwxr-xr-x');
    expect(goFileModeTriple(0o4755)).toBe('-rwxr-xr-x/2541/04755');
  });
});

import { describe, expect, it } from 'vitest';
import {
  describeSystemdNameProblem,
  dropinNameProblem,
  systemdNameProblems,
  unitNameProblem,
} from './systemd-names.js';
import { GeneratedSpecVersion } from '../../ignition/versions.js';

describe('unit names as systemd takes them', () => {
  it.each([
    'kubelet.service',
    'getty@tty1.service',
    'ovs-configuration@.service',
    'var-lib-containers.mount',
    'dev-disk-by\\x2dlabel-root.device',
    'a:b_c.timer',
    `${'a'.repeat(247)}.service`,
  ])('takes %s', (name) => {
    expect(unitNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['', 'must not be empty'],
    ['a/../../../../srv/x.service', 'must not contain "/"'],
    ['/etc/x.service', 'must not contain "/"'],
    ['..', 'must not contain ".."'],
    ['x..service', 'must not contain ".."'],
    [`${'a'.repeat(248)}.service`, 'must be at most 255 bytes'],
    [
      'with space.service',
      'may only contain ASCII letters, digits, ":", "-", "_", ".", "\\" and "@"',
    ],
    ['nul\0.service', 'may only contain ASCII letters, digits, ":", "-", "_", ".", "\\" and "@"'],
    ['ünit.service', 'may only contain ASCII letters, digits, ":", "-", "_", ".", "\\" and "@"'],
    ['@x.service', 'must not start with "@"'],
  ])('refuses %j: %s', (name, reason) => {
    expect(unitNameProblem(name)).toBe(reason);
  });
});

describe('drop-in names', () => {
  it.each(['10-mco.conf', 'with space.conf', '..conf'])('takes %j', (name) => {
    expect(dropinNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['', 'must not be empty'],
    ['../../../../../../../../srv/evil.conf', 'must not contain "/"'],
    ['a/b.conf', 'must not contain "/"'],
    ['a\0.conf', 'must not contain NUL'],
    [`${'é'.repeat(126)}.conf`, 'must be at most 255 bytes'],
  ])('refuses %j: %s', (name, reason) => {
    expect(dropinNameProblem(name)).toBe(reason);
  });
});

describe('systemdNameProblems', () => {
  it('lists every bad unit and drop-in name in config order, with where it is', () => {
    const problems = systemdNameProblems({
      ignition: { version: GeneratedSpecVersion },
      systemd: {
        units: [
          { name: 'ok.service', dropins: [{ name: '../x.conf' }, { name: 'fine.conf' }] },
          { name: 'a/b.service', dropins: [{ name: 'y/z.conf' }] },
        ],
      },
    });
    expect(problems.map((p) => [p.path.join('.'), describeSystemdNameProblem(p)])).toEqual([
      [
        'systemd.units.0.dropins.0.name',
        'invalid systemd drop-in name "../x.conf" of unit "ok.service": must not contain "/"',
      ],
      ['systemd.units.1.name', 'invalid systemd unit name "a/b.service": must not contain "/"'],
      [
        'systemd.units.1.dropins.0.name',
        'invalid systemd drop-in name "y/z.conf" of unit "a/b.service": must not contain "/"',
      ],
    ]);
    expect(systemdNameProblems({ ignition: { version: GeneratedSpecVersion } })).toEqual([]);
    expect(systemdNameProblems(undefined)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { ignition } from '../../../test/support/nodeplan-fixtures.js';
import { enablementCommands, planUnits, planUnitWrites } from './unit-writes.js';

describe('planUnits: docs/reference/daemon.md §7.6 unit rules', () => {
  it('dropins, mask, contents, unmask and enablement', () => {
    // GIVEN one unit of each kind
    const plan = planUnits([
      {
        name: 'a.service',
        contents: '[Unit]\n',
        enabled: true,
        dropins: [
          { name: '10-x.conf', contents: '[Service]\n' },
          { name: '20-empty.conf', contents: '' },
          { name: '30-none.conf' },
        ],
      },
      { name: 'm.service', mask: true, contents: 'ignored' },
      { name: 'u.service', mask: false, enabled: false },
      { name: 'p.service' },
    ]);
    // THEN each gets upstream's steps
    expect(plan).toEqual([
      {
        name: 'a.service',
        dropins: [
          {
            kind: 'write',
            path: '/etc/systemd/system/a.service.d/10-x.conf',
            contents: '[Service]\n',
            usrPath: '/usr/etc/systemd/system/a.service.d/10-x.conf',
          },
          { kind: 'remove', path: '/etc/systemd/system/a.service.d/20-empty.conf' },
          { kind: 'remove', path: '/etc/systemd/system/a.service.d/30-none.conf' },
        ],
        file: {
          kind: 'write',
          path: '/etc/systemd/system/a.service',
          contents: '[Unit]\n',
          mode: 0o644,
          usrPath: '/usr/etc/systemd/system/a.service',
        },
        enablement: 'enable',
        hasContents: true,
      },
      {
        name: 'm.service',
        dropins: [],
        file: { kind: 'mask', path: '/etc/systemd/system/m.service', target: '/dev/null' },
        enablement: 'preset',
        hasContents: true,
      },
      {
        name: 'u.service',
        dropins: [],
        file: { kind: 'unmask', path: '/etc/systemd/system/u.service' },
        enablement: 'disable',
        hasContents: false,
      },
      {
        name: 'p.service',
        dropins: [],
        file: { kind: 'none' },
        enablement: 'preset',
        hasContents: false,
      },
    ]);
  });
});

describe('planUnitWrites', () => {
  const oldIgn = ignition({
    units: [
      { name: 'same.service', contents: 's' },
      { name: 'c.service', contents: '1' },
    ],
  });
  const newIgn = ignition({
    units: [
      { name: 'same.service', contents: 's' },
      { name: 'c.service', contents: '2' },
      { name: 'n.service', contents: 'n' },
    ],
  });

  it('writes only added and changed units (added first)', () => {
    expect(planUnitWrites(oldIgn, newIgn, { forceFile: false }).map((u) => u.name)).toEqual([
      'n.service',
      'c.service',
    ]);
  });

  it('writes every unit when the forcefile exists', () => {
    expect(planUnitWrites(oldIgn, newIgn, { forceFile: true }).map((u) => u.name)).toEqual([
      'same.service',
      'c.service',
      'n.service',
    ]);
  });
});

describe('enablementCommands', () => {
  it('batches enable/disable, presets unset ones, and skips content-less units systemd does not know', () => {
    const plan = planUnits([
      { name: 'a.service', contents: 'x', enabled: true },
      { name: 'known.service', enabled: true },
      { name: 'ghost.service', enabled: false },
      { name: 'b.service', contents: 'x', enabled: false },
      { name: 'p.service', contents: 'x' },
    ]);
    expect(enablementCommands(plan, new Set(['known.service']))).toEqual({
      enable: ['a.service', 'known.service'],
      disable: ['b.service'],
      preset: ['p.service'],
      skipped: [{ name: 'ghost.service', action: 'disable' }],
    });
  });
});

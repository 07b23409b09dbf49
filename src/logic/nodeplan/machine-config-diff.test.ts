import { describe, expect, it } from 'vitest';
import {
  addedOrChangedUnits,
  changedFilePaths,
  changedUnitNames,
  changedUnits,
} from './config-diffs.js';
import {
  coreUser,
  ignFile,
  ignition,
  nodeConfig,
} from '../../../test/support/nodeplan-fixtures.js';
import {
  isEmptyDiff,
  machineConfigDiff,
  needsOsChanges,
  osChangesString,
} from './machine-config-diff.js';
import { describeNodeConfigError, emptyNodeConfig, parseNodeConfig } from './node-config.js';

const base = nodeConfig('base', { files: [ignFile('/etc/a', 'a')] }, { osImageURL: 'img@1' });

describe('machineConfigDiff: docs/reference/daemon.md §7.3 flags', () => {
  it.each([
    ['osUpdate', nodeConfig('n', { files: [ignFile('/etc/a', 'a')] }, { osImageURL: 'img@2' })],
    [
      'kargs',
      nodeConfig(
        'n',
        { files: [ignFile('/etc/a', 'a')] },
        { osImageURL: 'img@1', kernelArguments: ['x'] },
      ),
    ],
    [
      'fips',
      nodeConfig('n', { files: [ignFile('/etc/a', 'a')] }, { osImageURL: 'img@1', fips: true }),
    ],
    [
      'passwd',
      nodeConfig(
        'n',
        { files: [ignFile('/etc/a', 'a')], users: [coreUser('k')] },
        { osImageURL: 'img@1' },
      ),
    ],
    ['files', nodeConfig('n', { files: [ignFile('/etc/a', 'b')] }, { osImageURL: 'img@1' })],
    [
      'units',
      nodeConfig(
        'n',
        { files: [ignFile('/etc/a', 'a')], units: [{ name: 'u.service' }] },
        { osImageURL: 'img@1' },
      ),
    ],
    [
      'kernelType',
      nodeConfig(
        'n',
        { files: [ignFile('/etc/a', 'a')] },
        { osImageURL: 'img@1', kernelType: 'realtime' },
      ),
    ],
    [
      'extensions',
      nodeConfig(
        'n',
        { files: [ignFile('/etc/a', 'a')] },
        { osImageURL: 'img@1', extensions: ['usbguard'] },
      ),
    ],
  ] as const)('only %s differs', (flag, changed) => {
    // GIVEN a config differing from base in one respect
    const diff = machineConfigDiff(base, changed, { forceFile: false });
    // THEN exactly that flag is set
    expect(
      Object.entries(diff)
        .filter(([, v]) => v)
        .map(([k]) => k),
    ).toEqual([flag]);
    expect(isEmptyDiff(diff)).toBe(false);
  });

  it('is empty for equal configs, even across Ignition versions', () => {
    const v32 = parseNodeConfig({
      metadata: { name: 'v32' },
      spec: {
        osImageURL: 'img@1',
        config: { ignition: { version: '3.2.0' }, storage: { files: [ignFile('/etc/a', 'a')] } },
      },
    });
    expect(v32.ok).toBe(true);
    if (!v32.ok) return;
    expect(isEmptyDiff(machineConfigDiff(base, v32.value, { forceFile: false }))).toBe(true);
  });

  it('the forcefile makes osUpdate true', () => {
    expect(machineConfigDiff(base, base, { forceFile: true }).osUpdate).toBe(true);
  });

  it.each([
    ['', 'default', false],
    ['', 'realtime', true],
    ['bogus', 'default', false],
    ['64k-pages', 'realtime', true],
  ] as const)('kernelType %j → %j differs: %j', (a, b, expected) => {
    const diff = machineConfigDiff(
      emptyNodeConfig({ kernelType: a }),
      emptyNodeConfig({ kernelType: b }),
      {
        forceFile: false,
      },
    );
    expect(diff.kernelType).toBe(expected);
  });

  it('kargs: empty on both sides (nil ≡ []) is no change; order matters', () => {
    const d = (a: string[], b: string[]) =>
      machineConfigDiff(
        emptyNodeConfig({ kernelArguments: a }),
        emptyNodeConfig({ kernelArguments: b }),
        {
          forceFile: false,
        },
      ).kargs;
    expect(d([], [])).toBe(false);
    expect(d(['a', 'b'], ['b', 'a'])).toBe(true);
  });

  it('osChangesString and needsOsChanges', () => {
    const diff = machineConfigDiff(
      base,
      nodeConfig('n', {}, { osImageURL: 'img@2', kernelArguments: ['k'] }),
      {
        forceFile: false,
      },
    );
    expect(osChangesString(diff)).toBe('Upgrading OS; Changing kernel arguments');
    const same = machineConfigDiff(base, base, { forceFile: false });
    expect(needsOsChanges(same, base)).toBe(false);
    expect(needsOsChanges(same, { ...base, kernelType: 'realtime' })).toBe(true);
  });

  it('parse errors carry upstream’s "parsing old Ignition config failed" prefix', () => {
    const r = parseNodeConfig(
      { metadata: { name: 'x' }, spec: { config: { ignition: { version: '4.0.0' } } } },
      'old',
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(describeNodeConfigError(r.error)).toBe(
      'parsing old Ignition config failed: failed to parse Ignition config: parsing Ignition config failed: unknown version. Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5',
    );
  });
});

describe('changedFilePaths / changedUnits', () => {
  const oldIgn = ignition({
    files: [ignFile('/etc/kept', 'k'), ignFile('/etc/changed', '1'), ignFile('/etc/removed', 'r')],
    units: [
      { name: 'kept.service', contents: 'k' },
      { name: 'changed.service', contents: '1' },
      { name: 'removed.service', contents: 'r' },
    ],
  });
  const newIgn = ignition({
    files: [
      ignFile('/etc/added', 'a'),
      ignFile('/etc/kept', 'k'),
      ignFile('/etc/changed', '2', 0o600),
    ],
    units: [
      { name: 'kept.service', contents: 'k' },
      { name: 'changed.service', contents: '1', enabled: true },
      { name: 'added.service', contents: 'a' },
    ],
  });

  it('files: removed, then added or changed (mode counts)', () => {
    expect(changedFilePaths(oldIgn, newIgn)).toEqual([
      '/etc/removed',
      '/etc/added',
      '/etc/changed',
    ]);
    expect(changedFilePaths(newIgn, newIgn)).toEqual([]);
  });

  it('units by name: added, updated, removed', () => {
    const c = changedUnits(oldIgn, newIgn);
    expect(c.added.map((u) => u.name)).toEqual(['added.service']);
    expect(c.updated.map((u) => u.name)).toEqual(['changed.service']);
    expect(c.removed.map((u) => u.name)).toEqual(['removed.service']);
    expect(addedOrChangedUnits(c).map((u) => u.name)).toEqual(['added.service', 'changed.service']);
    expect(changedUnitNames(c)).toEqual(['added.service', 'changed.service', 'removed.service']);
  });
});

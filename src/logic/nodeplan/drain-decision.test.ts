import { describe, expect, it } from 'vitest';
import { changedFilePaths } from './config-diffs.js';
import { isDrainRequired, type PostConfigActions } from './drain-decision.js';
import { ignFile, ignition } from '../../../test/support/nodeplan-fixtures.js';
import type { LegacyAction } from './legacy-post-config-action.js';
import {
  describeRegistriesConfError,
  isSafeContainerRegistryConfChange,
  registriesConfChange,
} from './registries-conf.js';

// The registries.conf files of upstream's TestIsDrainRequired (pkg/daemon/drain_test.go).
const conf: Readonly<Record<string, string>> = {
  mc1: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
  prefix = ""
  location = "example.com/repo/test-img"

  [[registry.mirror]]
    location = "mirror.com/repo/test-img"

[[registry]]
  prefix = ""
  location = "example.com/repo1/test-img1"

  [[registry.mirror]]
    location = "mirror.com/repo1/test-img1"
\tpull-from-mirror= "digest-only"\t\t\t\t
`,
  mc2: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"

[[registry.mirror]]
\tlocation = "mirror.com/repo/test-img"

[[registry]]
prefix = ""
location = "example.com/repo1/test-img1"

[[registry.mirror]]
\tlocation = "mirror.com/repo1/test-img1"
\tpull-from-mirror = "digest-only"

[[registry.mirror]]
\tlocation = "mirror1.com/repo1/test-img1"
\tpull-from-mirror = "digest-only"
`,
  mc3: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
\tprefix = ""
\tlocation = "example.com/repo/test-img"

\t[[registry.mirror]]
\tlocation = "mirror.com/repo/test-img"
`,
  mc4: `
unqualified-search-registries = ["example.com", "foo.com", "bar.com"]

[[registry]]
\tprefix = ""
\tlocation = "example.com/repo/test-img"

\t[[registry.mirror]]
\tlocation = "mirror.com/repo/test-img"
\tpull-from-mirror = "digest-only"
`,
  mc5: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
\tprefix = ""
\tlocation = "example.com/repo/test-img"

\t[[registry.mirror]]
\tlocation = "mirror.com/repo/test-img"
\tpull-from-mirror = "digest-only"
`,
  mc6: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"

[[registry.mirror]]
location = "mirror.com/repo/test-img"
pull-from-mirror = "digest-only"

[[registry]]
prefix = ""
location = "example.com/repo1/test-img1"
`,
  mc7: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"

[[registry.mirror]]
location = "mirror.com/repo/test-img"
pull-from-mirror= "digest-only"

[[registry]]
prefix = ""
location = "example.com/repo1/test-img1"

[[registry.mirror]]
location = "mirror.com/repo1/test-img1"
`,
  mc8: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = "bar.com"
location = "example.com/repo/test-img"
`,
  mc9: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = "bar.com"
location = "example.com/repo/test-img"
blocked = true
`,
  mc10: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"
`,
  mc11: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo1/test-img"

[[registry.mirror]]
location = "mirror.com/repo1/test-img"
pull-from-mirror= "digest-only"

[[registry]]
prefix = "bar.com"
location = "example.com/repo/test-img"
blocked = true
`,
  mc12: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"
mirror-by-digest-only = true

[[registry.mirror]]
location = "mirror.com/repo/test-img"
`,
  mc13: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"
mirror-by-digest-only = true

[[registry.mirror]]
location = "mirror.com/repo/test-img"
[[registry.mirror]]
location = "mirror.com/repo/test-img-13"
`,
  mc14: `
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"
mirror-by-digest-only = true

[[registry.mirror]]
location = "mirror.com/repo/test-img"

[[registry]]
prefix = ""
location = "example.com/repo/test-img-14"
mirror-by-digest-only = false

[[registry.mirror]]
location = "mirror.com/repo/test-img-14"

`,
};

const ign = (name: string) =>
  ignition({ files: [ignFile('/etc/containers/registries.conf', conf[name] ?? '')] });

function drain(actions: PostConfigActions, oldName: string, newName: string): boolean {
  const oldIgn = ign(oldName);
  const newIgn = ign(newName);
  const registries = registriesConfChange(oldIgn, newIgn, changedFilePaths(oldIgn, newIgn));
  if (!registries.ok) throw new Error(describeRegistriesConfError(registries.error));
  const r = isDrainRequired(actions, registries.value);
  if (!r.ok) throw new Error(describeRegistriesConfError(r.error));
  return r.value;
}

const legacy = (...actions: LegacyAction[]): PostConfigActions => ({ kind: 'legacy', actions });

// Upstream TestIsDrainRequired, in its order, plus two cases of our own at the end.
const cases: readonly (readonly [string, PostConfigActions, string, string, boolean])[] = [
  ['skip: only None', legacy('none'), 'mc1', 'mc1', false],
  ['drain: reboot present', legacy('none', 'reboot'), 'mc1', 'mc1', true],
  ['skip: no change in registries.conf', legacy('reload crio'), 'mc1', 'mc1', false],
  ['skip: new registry whose mirror is digest-only', legacy('reload crio'), 'mc3', 'mc1', false],
  // Upstream's test expects "skip" here, but its isSafeContainerRegistryConfChanges (and
  // docs/reference/daemon.md §7.5) require mirror-by-digest-only=true for a new registry without mirrors.
  [
    'drain: new registry without mirrors, mirror-by-digest-only unset',
    legacy('reload crio'),
    'mc5',
    'mc6',
    true,
  ],
  ['drain: a registry removed', legacy('reload crio'), 'mc1', 'mc3', true],
  ['skip: only digest-only mirrors added', legacy('reload crio'), 'mc1', 'mc2', false],
  [
    'skip: digest-only mirrors added, blocked registry unchanged',
    legacy('reload crio'),
    'mc9',
    'mc11',
    false,
  ],
  ['drain: mirror added without digest-only', legacy('reload crio'), 'mc6', 'mc7', true],
  [
    'drain: new registry and mirrors without digest-only',
    legacy('reload crio'),
    'mc4',
    'mc7',
    true,
  ],
  ['drain: a mirror removed', legacy('reload crio'), 'mc2', 'mc1', true],
  ['drain: search registries removed or reordered', legacy('reload crio'), 'mc4', 'mc3', true],
  ['skip: search registries only appended', legacy('reload crio'), 'mc3', 'mc4', false],
  ['drain: prefix changed', legacy('reload crio'), 'mc8', 'mc10', true],
  ['drain: blocked changed', legacy('reload crio'), 'mc8', 'mc9', true],
  ['drain: mirrors of a registry removed', legacy('reload crio'), 'mc1', 'mc6', true],
  [
    'skip: mirror added to a mirror-by-digest-only registry',
    legacy('reload crio'),
    'mc12',
    'mc13',
    false,
  ],
  [
    'drain: new registry with a mirror, mirror-by-digest-only false',
    legacy('reload crio'),
    'mc12',
    'mc14',
    true,
  ],
  ['restart crio follows the same rules (drain)', legacy('restart crio'), 'mc2', 'mc1', true],
  ['restart crio follows the same rules (skip)', legacy('restart crio'), 'mc1', 'mc2', false],
];

describe('isDrainRequired: legacy actions (upstream TestIsDrainRequired)', () => {
  it.each(cases)('%s', (_name, actions, oldName, newName, expected) => {
    // GIVEN two configs differing only in registries.conf, and the computed actions
    // WHEN the drain decision is made
    // THEN it matches upstream's
    expect(drain(actions, oldName, newName)).toBe(expected);
  });

  it('drains for an unknown action, never for reload crio without a registries.conf change', () => {
    expect(drain(legacy(), 'mc1', 'mc2')).toBe(true);
    expect(drain(legacy('reload crio'), 'mc1', 'mc1')).toBe(false);
  });
});

describe('isDrainRequired: node disruption policy actions', () => {
  const policies = (
    ...types: ('Reboot' | 'Drain' | 'Special' | 'None' | 'DaemonReload')[]
  ): PostConfigActions => ({
    kind: 'policies',
    actions: types.map((type) => ({ type })),
  });
  const reload: PostConfigActions = {
    kind: 'policies',
    actions: [{ type: 'Reload', reload: { serviceName: 'crio.service' } }],
  };

  it.each([
    ['Reboot drains', policies('Reboot'), 'mc1', 'mc2', true],
    ['Drain drains', policies('Drain'), 'mc1', 'mc1', true],
    ['Special with a safe change does not drain', policies('Special'), 'mc1', 'mc2', false],
    ['Special with an unsafe change drains', policies('Special'), 'mc2', 'mc1', true],
    ['Reload never drains', reload, 'mc2', 'mc1', false],
    ['None and DaemonReload never drain', policies('None', 'DaemonReload'), 'mc2', 'mc1', false],
  ] as const)('%s', (_name, actions, oldName, newName, expected) => {
    expect(drain(actions, oldName, newName)).toBe(expected);
  });

  it('the image-registry drain override skips the registries.conf check', () => {
    const oldIgn = ign('mc2');
    const newIgn = ign('mc1');
    const registries = registriesConfChange(oldIgn, newIgn, changedFilePaths(oldIgn, newIgn));
    expect(registries.ok).toBe(true);
    if (!registries.ok) return;
    expect(
      isDrainRequired(policies('Special'), registries.value, { overrideImageRegistryDrain: true }),
    ).toEqual({
      ok: true,
      value: false,
    });
  });
});

describe('isSafeContainerRegistryConfChange: errors and edge cases', () => {
  it('reports a TOML syntax error with upstream’s prefix', () => {
    // GIVEN a broken registries.conf
    const r = isSafeContainerRegistryConfChange('', 'unqualified-search-registries = [');
    // THEN the decision fails with the file named
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(describeRegistriesConfError(r.error)).toMatch(
      /^failed decoding TOML content from file \/etc\/containers\/registries\.conf: /,
    );
  });

  it('refuses a value of the wrong type, as the Go decoder does', () => {
    const r = isSafeContainerRegistryConfChange(
      '',
      '[[registry]]\nlocation = "a"\nblocked = "yes"\n',
    );
    expect(r.ok).toBe(false);
  });

  it('treats a missing file as empty: adding a registry whose mirrors are all digest-only is safe', () => {
    expect(isSafeContainerRegistryConfChange('', conf['mc4'] ?? '')).toEqual({
      ok: true,
      value: true,
    });
  });

  it('keys registries by prefix when set, so a location change under the same prefix is unsafe', () => {
    const before = '[[registry]]\nprefix = "p"\nlocation = "a"\n';
    const after = '[[registry]]\nprefix = "p"\nlocation = "b"\n';
    expect(isSafeContainerRegistryConfChange(before, after)).toEqual({ ok: true, value: false });
  });

  it('a digest-only mirror may not be relaxed', () => {
    const before =
      '[[registry]]\nlocation = "a"\n[[registry.mirror]]\nlocation = "m"\npull-from-mirror = "digest-only"\n';
    const after =
      '[[registry]]\nlocation = "a"\n[[registry.mirror]]\nlocation = "m"\npull-from-mirror = "all"\n';
    expect(isSafeContainerRegistryConfChange(before, after)).toEqual({ ok: true, value: false });
    expect(isSafeContainerRegistryConfChange(after, before)).toEqual({ ok: true, value: true });
  });

  it('reports a bad data URL with upstream’s (colon-less for the new side) text', () => {
    const bad = ignition({
      files: [{ path: '/etc/containers/registries.conf', contents: { source: 'data:;base64,!!' } }],
    });
    const r = registriesConfChange(ignition(), bad, []);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(describeRegistriesConfError(r.error)).toBe(
      'failed decoding Data URL scheme string invalid data character',
    );
  });
});

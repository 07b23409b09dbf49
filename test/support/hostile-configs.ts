/**
 * The bad parts a hostile MachineConfig can carry, generated: unit and drop-in names with `/` and
 * `..` runs, file paths that are relative, climb or are not simplified, and links in the config
 * that a file then goes through. The same generator feeds the daemon's own tests (`mco daemon
 * --once-from`, in process) and the cluster-in-a-box tests (admission, then the daemon past it), so
 * both see the same cases. Each kind has the clear error every layer must give for it.
 */
import fc from 'fast-check';

export type BadPart =
  | { readonly kind: 'unit'; readonly name: string }
  | { readonly kind: 'dropin'; readonly name: string }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'link'; readonly path: string; readonly target: string };

/** The clear error each kind of bad input must give, at admission and in the daemon. */
export const Refusals: Readonly<Record<BadPart['kind'], RegExp>> = {
  unit: /invalid systemd unit name .*: must not (contain "\/"|contain "\.\."|be empty)|invalid systemd unit extension/,
  dropin:
    /invalid systemd drop-in name .*: must not contain "\/"|invalid systemd drop-in extension/,
  file: /path not absolute|path is not fully simplified/,
  link: /ignition links section contains changes|file path includes link in config/,
};

const climb = fc.integer({ min: 1, max: 12 }).map((n) => '../'.repeat(n));

/** One bad part; `sentinel` is the absolute path of the folder beside the node's root. */
export function badPart(sentinel: string): fc.Arbitrary<BadPart> {
  return fc.oneof(
    fc
      .oneof(
        fc.constant('a/../../../../srv/x.service'),
        climb.map((c) => `${c}srv/x.service`),
        climb.map((c) => `${c}sentinel/x.service`),
        fc.constant(`${sentinel}/x.service`),
        fc.constant('x/y.service'),
        fc.constant('..service'),
        fc.constant(''),
      )
      .map((name) => ({ kind: 'unit' as const, name })),
    fc
      .oneof(
        fc.constant('../../../../../../../../srv/evil.conf'),
        climb.map((c) => `${c}sentinel/evil.conf`),
        climb.map((c) => `${c}srv/evil.conf`),
        fc.constant(`${sentinel}/evil.conf`),
        fc.constant('a/b.conf'),
      )
      .map((name) => ({ kind: 'dropin' as const, name })),
    fc
      .oneof(
        fc.constant('etc/relative.conf'),
        climb.map((c) => `/etc/${c}srv/evil.conf`),
        fc.constant('/etc/./x.conf'),
        fc.constant('/etc//x.conf'),
        fc.constant('/etc/x/'),
      )
      .map((path) => ({ kind: 'file' as const, path })),
    fc
      .record({
        path: fc.constantFrom('/etc/l', '/srv/l'),
        target: fc.oneof(
          fc.constant(sentinel),
          climb.map((c) => `${c}sentinel`),
        ),
      })
      .map((r) => ({ kind: 'link' as const, ...r })),
  );
}

/** The Ignition sections that carry a bad part, to add to a config's own. */
interface BadSections {
  readonly files: readonly Record<string, unknown>[];
  readonly links: readonly Record<string, unknown>[];
  readonly units: readonly Record<string, unknown>[];
}

function badSections(bad: BadPart | undefined): BadSections {
  switch (bad?.kind) {
    case 'unit':
      return {
        files: [],
        links: [],
        units: [
          {
            name: bad.name,
            enabled: true,
            contents: '[Unit]\n[Install]\nWantedBy=multi-user.target\n',
          },
        ],
      };
    case 'dropin':
      return {
        files: [],
        links: [],
        units: [
          { name: 'kubelet.service', dropins: [{ name: bad.name, contents: '[Service]\n' }] },
        ],
      };
    case 'file':
      return {
        files: [{ path: bad.path, mode: 0o644, contents: { source: 'data:,evil' } }],
        links: [],
        units: [],
      };
    case 'link':
      return {
        // the file goes through the link: where it lands is what the link would decide
        files: [{ path: `${bad.path}/evil.conf`, mode: 0o644, contents: { source: 'data:,evil' } }],
        links: [{ path: bad.path, target: bad.target }],
        units: [],
      };
    case undefined:
      return { files: [], links: [], units: [] };
  }
}

/** An Ignition 3.4 config of `files` plus the bad part's sections (empty sections left out). */
export function hostileIgnition(
  files: readonly Record<string, unknown>[],
  bad: BadPart | undefined,
): Record<string, unknown> {
  const b = badSections(bad);
  const allFiles = [...files, ...b.files];
  return {
    ignition: { version: '3.4.0' },
    storage: { files: allFiles, ...(b.links.length > 0 ? { links: b.links } : {}) },
    ...(b.units.length > 0 ? { systemd: { units: b.units } } : {}),
  };
}

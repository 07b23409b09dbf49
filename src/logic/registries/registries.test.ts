import { describe, expect, it } from 'vitest';
import { parse } from 'smol-toml';
import type { Image } from '../../api/config/v1/image.js';
import type { ImageDigestMirrorSet } from '../../api/config/v1/image-digest-mirror-set.js';
import type { ImageTagMirrorSet } from '../../api/config/v1/image-tag-mirror-set.js';
import type { ImageContentSourcePolicy } from '../../api/operator/v1alpha1/image-content-source-policy.js';
import { editRegistriesConfig, type RegistryEntry } from './edit-registries-config.js';
import {
  generateRegistriesIgnition,
  PolicyJsonPath,
  RegistriesConfPath,
  SearchRegistriesPath,
  type RegistriesInputs,
} from './generate-registries-config.js';
import { mergeMirrorSets, type MirrorEntry } from './merge-mirror-sets.js';
import { describeSkippedBlocked, imageRepository } from './payload-block-lists.js';
import { isValidRegistriesConfScope, scopeIsNestedInsideScope } from './registry-scope.js';

// Cases from upstream's runtime-utils registries_test.go and the MCO's container-runtime-config
// helpers tests, translated from Go structs to the TOML data they encode.

describe('scopeIsNestedInsideScope', () => {
  it.each<[string, string, boolean]>([
    ['quay.io', 'example.com', false],
    ['quay.io', 'quay.io', true],
    ['quay.io:443', 'quay.io', false],
    ['quay.io:443', 'quay.io:444', false],
    ['quay.io.example.com', 'quay.io', false],
    ['quay.io2', 'quay.io', false],
    ['quay.io/ns1', 'quay.io', true],
    ['quay.io/ns1/ns2/ns3', 'quay.io', true],
    ['quay.io/ns1/ns2/ns3', 'not-quay.io', false],
    ['bar/example.foo', '*.foo', false],
    ['example/bar.foo/quay.io', '*.foo', false],
    ['example/bar.foo:400', '*.foo', false],
    ['foo.example.com', '*.example.com', true],
    ['*.foo.example.com', '*.example.com', true],
    ['foo.example.com/bar', '*.example.com', true],
    ['foo.registry.com', '*.example.com', false],
    ['foo.example.com', '**.example.com', false],
    ['foo.example.com', 'example.*.com', false],
    ['foo.example.com', '*.example.com/foo/bar', false],
    ['foo.example.com:443/bar/baz', '*.example.com', true],
    ['foo.example.com:443/bar/baz', '*.example.com/bar/baz', false],
    ['foo.example.com', '*example.com', false],
    ['foo.example.com', '*/example.com', false],
  ])('%s in %s: %s', (sub, sup, expected) => {
    expect(scopeIsNestedInsideScope(sub, sup)).toBe(expected);
  });
});

describe('isValidRegistriesConfScope', () => {
  it.each<[string, boolean]>([
    ['example.com', true],
    ['*.example.com', true],
    ['**.example.com', false],
    ['example.*.com', false],
    ['*.example.com/foo/bar', false],
    ['*.example.com:foo', false],
    ['*.example.com/foo:sha@bar', false],
    ['*.example.com.*.bar.com', false],
    ['*example.com', false],
    ['*/example.com', false],
    ['*.*example.com', false],
    ['', false],
  ])('%j: %s', (scope, expected) => {
    expect(isValidRegistriesConfScope(scope)).toBe(expected);
  });
});

describe('mergeMirrorSets (upstream TestMergedMirrorSets)', () => {
  const sets = (input: MirrorEntry[][]) =>
    mergeMirrorSets(input.flat()).map(({ source, mirrors }) => ({ source, mirrors }));
  it.each<[string, MirrorEntry[][], { source: string; mirrors: string[] }[]]>([
    ['Empty', [], []],
    [
      'Irrelevant singletons',
      [[{ source: 'a.example.com' }, { source: 'b.example.com', mirrors: [] }]],
      [],
    ],
    [
      'Separate mirror sets',
      [
        [
          {
            source: 'source.example.net',
            mirrors: ['z1.example.net', 'y2.example.net', 'x3.example.net'],
          },
        ],
        [
          {
            source: 'source.example.com',
            mirrors: ['z1.example.com', 'y2.example.com', 'x3.example.com'],
          },
        ],
      ],
      [
        {
          source: 'source.example.com',
          mirrors: ['z1.example.com', 'y2.example.com', 'x3.example.com'],
        },
        {
          source: 'source.example.net',
          mirrors: ['z1.example.net', 'y2.example.net', 'x3.example.net'],
        },
      ],
    ],
    [
      'Sets with a shared element - strict order',
      [
        [
          { source: 'source.example.net', mirrors: ['z1.example.net', 'y2.example.net'] },
          { source: 'source.example.com', mirrors: ['z1.example.com', 'y2.example.com'] },
        ],
        [
          { source: 'source.example.net', mirrors: ['y2.example.net', 'x3.example.net'] },
          { source: 'source.example.com', mirrors: ['y2.example.com', 'x3.example.com'] },
        ],
      ],
      [
        {
          source: 'source.example.com',
          mirrors: ['z1.example.com', 'y2.example.com', 'x3.example.com'],
        },
        {
          source: 'source.example.net',
          mirrors: ['z1.example.net', 'y2.example.net', 'x3.example.net'],
        },
      ],
    ],
    [
      'Source included in mirrors',
      [
        [
          {
            source: 'source.example.com',
            mirrors: ['z1.example.com', 'source.example.com', 'y2.example.com'],
          },
          {
            source: 'source.example.com',
            mirrors: ['source.example.com', 'y2.example.com', 'x3.example.com'],
          },
        ],
      ],
      [
        {
          source: 'source.example.com',
          mirrors: ['z1.example.com', 'source.example.com', 'y2.example.com', 'x3.example.com'],
        },
      ],
    ],
    [
      'Mirrors includes only source',
      [
        [
          { source: 'source.example.com', mirrors: ['source.example.com'] },
          { source: 'source.example.net', mirrors: ['source.example.net', 'source.example.net'] },
        ],
      ],
      [],
    ],
    [
      'Example (a cycle between two vendor mirrors)',
      [
        [{ source: 'source.vendor.com', mirrors: ['registry2.vendor.com'] }],
        [
          {
            source: 'source.vendor2.com',
            mirrors: ['registry1.vendor2.com', 'registry2.vendor2.com'],
          },
        ],
        [
          { source: 'source.vendor.com', mirrors: ['local-mirror.example.com'] },
          {
            source: 'source.vendor2.com',
            mirrors: [
              'local-mirror2.example.com',
              'registry2.vendor2.com',
              'registry1.vendor2.com',
            ],
          },
        ],
      ],
      [
        {
          source: 'source.vendor.com',
          mirrors: ['local-mirror.example.com', 'registry2.vendor.com'],
        },
        {
          source: 'source.vendor2.com',
          mirrors: ['local-mirror2.example.com', 'registry1.vendor2.com', 'registry2.vendor2.com'],
        },
      ],
    ],
  ])('%s', (_name, input, expected) => {
    expect(sets(input)).toEqual(expected);
  });

  it('NeverContactSource on any entry of a source blocks it', () => {
    expect(
      mergeMirrorSets([
        { source: 's.io', mirrors: ['m1.io'] },
        { source: 's.io', mirrors: ['m2.io'], mirrorSourcePolicy: 'NeverContactSource' },
      ]),
    ).toEqual([{ source: 's.io', mirrors: ['m1.io', 'm2.io'], neverContactSource: true }]);
  });
});

const reg = (scope: string, o: Partial<RegistryEntry> = {}): RegistryEntry => ({
  prefix: scope.startsWith('*.') ? scope : '',
  location: scope.startsWith('*.') ? '' : scope,
  insecure: false,
  blocked: false,
  mirror: [],
  ...o,
});
const digest = (location: string, insecure = false) => ({
  location,
  insecure,
  'pull-from-mirror': 'digest-only' as const,
});

describe('editRegistriesConfig (upstream TestEditRegistriesConfig)', () => {
  const base = {
    other: { 'unqualified-search-registries': ['registry.access.redhat.com', 'docker.io'] },
    registries: [],
  };
  const edit = (insecure: string[], blocked: string[], icsp: MirrorEntry[] = []) =>
    editRegistriesConfig(base, {
      insecure,
      blocked,
      digestMirrors: mergeMirrorSets(icsp),
      tagMirrors: [],
    });

  it('unchanged', () => {
    expect(edit([], [])).toEqual(base);
  });

  it('insecure+blocked', () => {
    expect(
      edit(
        ['registry.access.redhat.com', 'insecure.com', 'common.com'],
        ['blocked.com', 'common.com', 'docker.io'],
      ).registries,
    ).toEqual([
      reg('blocked.com', { blocked: true }),
      reg('common.com', { insecure: true, blocked: true }),
      reg('docker.io', { blocked: true }),
      reg('registry.access.redhat.com', { insecure: true }),
      reg('insecure.com', { insecure: true }),
    ]);
  });

  it('insecure+blocked prefixes with wildcard entries', () => {
    const out = edit(
      ['insecure.com', '*.insecure-example.com', '*.insecure.blocked-example.com'],
      ['blocked.com', '*.blocked.insecure-example.com', '*.blocked-example.com'],
      [
        { source: 'insecure.com/ns-i1', mirrors: ['blocked.com/ns-b1', 'other.com/ns-o1'] },
        { source: 'blocked.com/ns-b/ns2-b', mirrors: ['other.com/ns-o2', 'insecure.com/ns-i2'] },
        {
          source: 'other.com/ns-o3',
          mirrors: ['insecure.com/ns-i2', 'blocked.com/ns-b/ns3-b', 'foo.insecure-example.com/bar'],
        },
      ],
    );
    expect(out.registries).toEqual([
      reg('blocked.com/ns-b/ns2-b', {
        blocked: true,
        mirror: [digest('other.com/ns-o2'), digest('insecure.com/ns-i2', true)],
      }),
      reg('insecure.com/ns-i1', {
        insecure: true,
        mirror: [digest('blocked.com/ns-b1'), digest('other.com/ns-o1')],
      }),
      reg('other.com/ns-o3', {
        mirror: [
          digest('insecure.com/ns-i2', true),
          digest('blocked.com/ns-b/ns3-b'),
          digest('foo.insecure-example.com/bar', true),
        ],
      }),
      reg('blocked.com', { blocked: true }),
      reg('*.blocked.insecure-example.com', { blocked: true, insecure: true }),
      reg('*.blocked-example.com', { blocked: true }),
      reg('insecure.com', { insecure: true }),
      reg('*.insecure-example.com', { insecure: true }),
      reg('*.insecure.blocked-example.com', { blocked: true, insecure: true }),
    ]);
  });

  it('tag mirrors are tag-only, and a nested registry inherits its source’s mirrors', () => {
    const out = editRegistriesConfig(base, {
      insecure: [],
      blocked: ['quay.io/team/private'],
      digestMirrors: mergeMirrorSets([{ source: 'quay.io/team', mirrors: ['mirror.local/team'] }]),
      tagMirrors: mergeMirrorSets([{ source: 'docker.io/library', mirrors: ['mirror.local/lib'] }]),
    });
    expect(out.registries).toEqual([
      reg('quay.io/team', { mirror: [digest('mirror.local/team')] }),
      reg('docker.io/library', {
        mirror: [{ location: 'mirror.local/lib', insecure: false, 'pull-from-mirror': 'tag-only' }],
      }),
      reg('quay.io/team/private', { blocked: true, mirror: [digest('mirror.local/team/private')] }),
    ]);
  });
});

const image = (registrySources: NonNullable<Image['spec']['registrySources']> = {}): Image => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'Image',
  metadata: { name: 'cluster' },
  spec: { registrySources },
});
const idms = (
  entries: NonNullable<ImageDigestMirrorSet['spec']['imageDigestMirrors']>,
): ImageDigestMirrorSet => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'ImageDigestMirrorSet',
  metadata: { name: 'idms' },
  spec: { imageDigestMirrors: entries },
});
const itms = (
  entries: NonNullable<ImageTagMirrorSet['spec']['imageTagMirrors']>,
): ImageTagMirrorSet => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'ImageTagMirrorSet',
  metadata: { name: 'itms' },
  spec: { imageTagMirrors: entries },
});
const icsp = (entries: { source: string; mirrors: string[] }[]): ImageContentSourcePolicy => ({
  apiVersion: 'operator.openshift.io/v1alpha1',
  kind: 'ImageContentSourcePolicy',
  metadata: { name: 'icsp' },
  spec: { repositoryDigestMirrors: entries },
});
const BaseConf =
  'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\nshort-name-mode = "enforcing"\n';
const inputs = (o: Partial<RegistriesInputs>): RegistriesInputs => ({
  image: image(),
  digestMirrorSets: [],
  tagMirrorSets: [],
  contentSourcePolicies: [],
  releaseImage:
    'release-reg.io/release/payload@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  baseRegistriesConf: BaseConf,
  ...o,
});

function files(i: RegistriesInputs): Map<string, string> {
  const r = generateRegistriesIgnition(i);
  if (!r.ok) throw new Error(r.error);
  return new Map(
    r.value.ignition.storage.files.map((f) => [
      f.path,
      Buffer.from(f.contents.source.split(',')[1] ?? '', 'base64').toString('utf8'),
    ]),
  );
}

function failure(i: RegistriesInputs): string {
  const r = generateRegistriesIgnition(i);
  if (r.ok) throw new Error('expected an error');
  return r.error;
}

describe('generateRegistriesIgnition', () => {
  it('nothing set: a config with no files', () => {
    expect(files(inputs({})).size).toBe(0);
  });

  it('an IDMS gives registries.conf with digest-only mirrors and the template’s keys kept', () => {
    const out = files(
      inputs({
        digestMirrorSets: [
          idms([
            {
              source: 'quay.io/openshift-release-dev/ocp-release',
              mirrors: ['127.0.0.1:5000/ocp/release'],
            },
          ]),
        ],
      }),
    );
    expect([...out.keys()]).toEqual([RegistriesConfPath]);
    expect(parse(out.get(RegistriesConfPath) ?? '')).toEqual({
      'unqualified-search-registries': ['registry.access.redhat.com', 'docker.io'],
      'short-name-mode': 'enforcing',
      registry: [
        {
          prefix: '',
          location: 'quay.io/openshift-release-dev/ocp-release',
          insecure: false,
          blocked: false,
          mirror: [
            {
              location: '127.0.0.1:5000/ocp/release',
              insecure: false,
              'pull-from-mirror': 'digest-only',
            },
          ],
        },
      ],
    });
  });

  it('an empty mirror set still writes registries.conf (the set exists)', () => {
    expect(files(inputs({ tagMirrorSets: [itms([])] })).has(RegistriesConfPath)).toBe(true);
  });

  it('blocked registries go to registries.conf and policy.json (reject), the rest accepted', () => {
    const out = files(inputs({ image: image({ blockedRegistries: ['blocked.io', 'docker.io'] }) }));
    expect([...out.keys()]).toEqual([RegistriesConfPath, PolicyJsonPath]);
    expect(JSON.parse(out.get(PolicyJsonPath) ?? '')).toEqual({
      default: [{ type: 'insecureAcceptAnything' }],
      transports: {
        'docker-daemon': { '': [{ type: 'insecureAcceptAnything' }] },
        docker: { 'blocked.io': [{ type: 'reject' }], 'docker.io': [{ type: 'reject' }] },
        atomic: { 'blocked.io': [{ type: 'reject' }], 'docker.io': [{ type: 'reject' }] },
      },
    });
    expect(out.get(PolicyJsonPath)).toMatch(/^\{\n {2}"default"/);
  });

  it('allowed registries: default reject; atomic leaves out scopes with 3 or more slashes', () => {
    const out = files(inputs({ image: image({ allowedRegistries: ['quay.io', 'a.io/b/c/d'] }) }));
    expect([...out.keys()]).toEqual([PolicyJsonPath]);
    const policy = JSON.parse(out.get(PolicyJsonPath) ?? '') as Record<string, unknown>;
    expect(policy).toEqual({
      default: [{ type: 'reject' }],
      transports: {
        'docker-daemon': { '': [{ type: 'insecureAcceptAnything' }] },
        docker: {
          'quay.io': [{ type: 'insecureAcceptAnything' }],
          'a.io/b/c/d': [{ type: 'insecureAcceptAnything' }],
        },
        atomic: { 'quay.io': [{ type: 'insecureAcceptAnything' }] },
      },
    });
  });

  it('blocking the payload’s registry: dropped when no mirror reaches it, kept (payload allowed) when one does', () => {
    const blocked = image({ blockedRegistries: ['release-reg.io', 'other.io'] });
    const dropped = generateRegistriesIgnition(inputs({ image: blocked }));
    expect(dropped.ok && dropped.value.skippedBlocked).toEqual(['release-reg.io']);
    expect(describeSkippedBlocked(['release-reg.io'])).toBe(
      'error adding ["release-reg.io"] to blocked registries, cannot block the repository being used by the payload, skipping....',
    );
    const mirrored = files(
      inputs({
        image: blocked,
        digestMirrorSets: [
          idms([{ source: 'release-reg.io/release', mirrors: ['mirror.local/release'] }]),
        ],
      }),
    );
    const policy = JSON.parse(mirrored.get(PolicyJsonPath) ?? '') as {
      transports: { docker: unknown };
    };
    expect(policy.transports.docker).toEqual({
      'release-reg.io': [{ type: 'reject' }],
      'other.io': [{ type: 'reject' }],
      'release-reg.io/release/payload': [{ type: 'insecureAcceptAnything' }],
    });
  });

  it('ICSP entries are digest mirrors; ITMS entries tag mirrors; search registries get their drop-in', () => {
    const out = files(
      inputs({
        image: image({ containerRuntimeSearchRegistries: ['search.io'] }),
        contentSourcePolicies: [icsp([{ source: 'a.io/x', mirrors: ['m.io/x'] }])],
        tagMirrorSets: [itms([{ source: 'b.io/y', mirrors: ['m.io/y'] }])],
      }),
    );
    expect([...out.keys()]).toEqual([RegistriesConfPath, SearchRegistriesPath]);
    const conf = parse(out.get(RegistriesConfPath) ?? '') as {
      registry: { location: string; mirror: { 'pull-from-mirror': string }[] }[];
    };
    expect(conf.registry.map((r) => [r.location, r.mirror[0]?.['pull-from-mirror']])).toEqual([
      ['a.io/x', 'digest-only'],
      ['b.io/y', 'tag-only'],
    ]);
    expect(parse(out.get(SearchRegistriesPath) ?? '')).toEqual({
      'unqualified-search-registries': ['search.io'],
    });
  });

  it.each<[string, Partial<RegistriesInputs>, string]>([
    [
      'bad insecure scope',
      { image: image({ insecureRegistries: ['*.a.io/b'] }) },
      'invalid entry for insecure registries "*.a.io/b"',
    ],
    [
      'bad blocked scope',
      { image: image({ blockedRegistries: ['a.*.io'] }) },
      'invalid entry for blocked registries "a.*.io"',
    ],
    [
      'ICSP source with a tag',
      { contentSourcePolicies: [icsp([{ source: 'a.io/x:tag', mirrors: ['m.io/x'] }])] },
      'invalid format for source "a.io/x:tag"',
    ],
    [
      'wildcard mirror',
      { contentSourcePolicies: [icsp([{ source: 'a.io/x', mirrors: ['*.m.io'] }])] },
      'invalid format for mirror "*.m.io"',
    ],
    [
      'ICSP and NeverContactSource IDMS on one source',
      {
        contentSourcePolicies: [icsp([{ source: 'a.io/x', mirrors: ['m.io/x'] }])],
        digestMirrorSets: [
          idms([
            { source: 'a.io/x', mirrors: ['n.io/x'], mirrorSourcePolicy: 'NeverContactSource' },
          ]),
        ],
      },
      'conflicting mirrorSourcePolicy is set for the same source "a.io/x" in imagedigestmirrorsets, imagetagmirrorsets, or imagecontentsourcepolicies',
    ],
    [
      'NeverContactSource with the source as a mirror',
      {
        tagMirrorSets: [
          itms([
            {
              source: 'a.io/x',
              mirrors: ['a.io/x', 'm.io/x'],
              mirrorSourcePolicy: 'NeverContactSource',
            },
          ]),
        ],
      },
      'cannot set mirrorSourcePolicy: NeverContactSource if the source "a.io/x" is one of the mirrors',
    ],
  ])('%s: upstream’s error', (_name, o, message) => {
    expect(failure(inputs(o))).toBe(
      `could not update registries config with new changes: ${message}`,
    );
  });

  it('allowed and blocked together is an error', () => {
    expect(
      failure(
        inputs({ image: image({ allowedRegistries: ['a.io'], blockedRegistries: ['b.io'] }) }),
      ),
    ).toBe(
      'could not update policy json with new changes: invalid images config: only one of AllowedRegistries or BlockedRegistries may be specified',
    );
  });

  it('an unparseable release image is an error', () => {
    expect(failure(inputs({ releaseImage: 'not a reference' }))).toBe(
      'error parsing reference of release image "not a reference"',
    );
  });

  it.each([
    ['quay.io/ocp/release:4.16', 'quay.io/ocp/release'],
    ['127.0.0.1:5000/ocp/release@sha256:abc', '127.0.0.1:5000/ocp/release'],
    ['127.0.0.1:5000/ocp/release', '127.0.0.1:5000/ocp/release'],
    ['release', undefined],
  ])('imageRepository(%s) = %s', (ref, repo) => {
    expect(imageRepository(ref)).toBe(repo);
  });
});

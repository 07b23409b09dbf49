/** Pull sources from registries.conf as containers/image resolves them (docs/reference/registries.md §3). */
import { describe, expect, it } from 'vitest';
import { pullSources } from './pull-sources.js';

const conf = `
unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]

[[registry]]
  prefix = ""
  location = "quay.io/openshift"

  [[registry.mirror]]
    location = "mirror.local/openshift"
    pull-from-mirror = "digest-only"

  [[registry.mirror]]
    location = "tags.local/openshift"
    pull-from-mirror = "tag-only"

[[registry]]
  prefix = ""
  location = "quay.io/openshift/release"
  blocked = true

  [[registry.mirror]]
    location = "mirror.local/release"
    pull-from-mirror = "digest-only"

[[registry]]
  prefix = "*.example.com"
  location = ""
  insecure = true
`;
const digest = `@sha256:${'a'.repeat(64)}`;
const sources = (ref: string) => {
  const r = pullSources(conf, ref);
  if (!r.ok) throw new Error(r.error);
  return r.value.references;
};

describe('pullSources', () => {
  it('by digest: digest-only mirrors first, then the source', () => {
    expect(sources(`quay.io/openshift/os${digest}`)).toEqual([
      `mirror.local/openshift/os${digest}`,
      `quay.io/openshift/os${digest}`,
    ]);
  });
  it('by tag: only tag-only (and all) mirrors', () => {
    expect(sources('quay.io/openshift/os:4.17')).toEqual([
      'tags.local/openshift/os:4.17',
      'quay.io/openshift/os:4.17',
    ]);
  });
  it('the longest scope wins, and a blocked source is left out', () => {
    expect(sources(`quay.io/openshift/release${digest}`)).toEqual([
      `mirror.local/release${digest}`,
    ]);
  });
  it('a scope matches only at a path boundary', () => {
    expect(sources(`quay.io/openshiftx/os${digest}`)).toEqual([`quay.io/openshiftx/os${digest}`]);
  });
  it('wildcards match but do not rewrite; no file means the image itself', () => {
    expect(sources(`a.example.com/os${digest}`)).toEqual([`a.example.com/os${digest}`]);
    expect(pullSources(undefined, 'x/y:1')).toEqual({
      ok: true,
      value: { references: ['x/y:1'], sourceBlocked: false },
    });
  });
  it('a file that is not TOML is an error', () => {
    const r = pullSources('[[registry]\nlocation = ', 'x/y:1');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^failed decoding \/etc\/containers\/registries.conf: /);
  });
});

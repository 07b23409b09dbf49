/**
 * Discovery documents, all derived from the served ResourceTypes: legacy `/api` (APIVersions),
 * `/apis` (APIGroupList), `/apis/<g>` (APIGroup), `/api/v1` and `/apis/<g>/<v>` (APIResourceList,
 * with `<plural>/status` and `pods/eviction` entries), and aggregated discovery
 * (APIGroupDiscoveryList, apidiscovery.k8s.io v2 or v2beta1) for `/api` and `/apis`.
 */
import type { ResourceType, Subresource, Verb } from '../resource-type.js';
import { compareStrings } from './json-access.js';

/** The verbs of a subresource entry, and the kind it answers with when not the resource's own. */
const SubresourceEntries: Readonly<
  Record<Subresource, { readonly verbs: readonly Verb[]; readonly kind?: GroupVersionKind }>
> = {
  status: { verbs: ['get', 'patch', 'update'] },
  approval: { verbs: ['get', 'patch', 'update'] },
  log: { verbs: ['get'] },
  eviction: { verbs: ['create'], kind: { group: 'policy', version: 'v1', kind: 'Eviction' } },
  token: {
    verbs: ['create'],
    kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
  },
};

export interface GroupVersions {
  readonly group: string;
  readonly versions: readonly string[];
}

/** The groups of `types` (core excluded unless asked), each with its versions, in first-seen order. */
export function groupsOf(types: readonly ResourceType[], includeCore = false): GroupVersions[] {
  const groups = new Map<string, string[]>();
  for (const rt of types) {
    if (rt.group === '' && !includeCore) continue;
    const versions = groups.get(rt.group) ?? [];
    if (!versions.includes(rt.version)) versions.push(rt.version);
    groups.set(rt.group, versions);
  }
  return [...groups].map(([group, versions]) => ({ group, versions }));
}

const sortedVerbs = (verbs: readonly Verb[]): Verb[] => [...verbs].sort(compareStrings);
const byName = <T extends { name: string }>(a: T, b: T): number => compareStrings(a.name, b.name);
const byResource = <T extends { resource: string }>(a: T, b: T): number =>
  compareStrings(a.resource, b.resource);

/** `GET /api`: `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[…]}`. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(g: GroupVersions): Record<string, unknown> {
  const versions = g.versions.map((version) => ({
    groupVersion: `${g.group}/${version}`,
    version,
  }));
  return { name: g.group, versions, preferredVersion: versions[0] };
}

/** `GET /apis`: every non-core group. */
export function apiGroupList(types: readonly ResourceType[]): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groupsOf(types).map(apiGroup) };
}

/** `GET /apis/<group>`, or undefined for a group that is not served. */
export function apiGroupDocument(
  types: readonly ResourceType[],
  group: string,
): Record<string, unknown> | undefined {
  const g = groupsOf(types).find((x) => x.group === group);
  return g === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g) };
}

interface LegacyResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: Verb[];
  shortNames?: string[];
  categories?: string[];
}

function legacyResources(rt: ResourceType): LegacyResource[] {
  const main: LegacyResource = {
    name: rt.plural,
    singularName: rt.singular,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: sortedVerbs(rt.verbs),
  };
  if (rt.shortNames.length > 0) main.shortNames = [...rt.shortNames];
  if (rt.categories.length > 0) main.categories = [...rt.categories];
  const subs = rt.subresources.map((sub): LegacyResource => {
    const base = { name: `${rt.plural}/${sub}`, singularName: '', namespaced: rt.namespaced };
    const entry = SubresourceEntries[sub];
    if (entry.kind !== undefined)
      return {
        ...base,
        group: entry.kind.group,
        version: entry.kind.version,
        kind: entry.kind.kind,
        verbs: [...entry.verbs],
      };
    return { ...base, kind: rt.kind, verbs: [...entry.verbs] };
  });
  return [main, ...subs];
}

/** `GET /api/v1` or `/apis/<g>/<v>`: the resources of one group-version, subresources included. */
export function apiResourceList(
  types: readonly ResourceType[],
  group: string,
  version: string,
): Record<string, unknown> {
  const resources = types
    .filter((rt) => rt.group === group && rt.version === version)
    .flatMap(legacyResources)
    .sort(byName);
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources,
  };
}

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

interface SubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKind;
  verbs: Verb[];
}

interface ResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Cluster' | 'Namespaced';
  singularResource: string;
  verbs: Verb[];
  shortNames?: string[];
  categories?: string[];
  subresources?: SubresourceDiscovery[];
}

function resourceDiscovery(rt: ResourceType): ResourceDiscovery {
  const responseKind = { group: rt.group, version: rt.version, kind: rt.kind };
  const out: ResourceDiscovery = {
    resource: rt.plural,
    responseKind,
    scope: rt.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: rt.singular,
    verbs: sortedVerbs(rt.verbs),
  };
  if (rt.shortNames.length > 0) out.shortNames = [...rt.shortNames];
  if (rt.categories.length > 0) out.categories = [...rt.categories];
  if (rt.subresources.length > 0) {
    out.subresources = rt.subresources.map((sub) => {
      const entry = SubresourceEntries[sub];
      return {
        subresource: sub,
        responseKind: { ...(entry.kind ?? responseKind) },
        verbs: [...entry.verbs],
      };
    });
  }
  return out;
}

/**
 * An APIGroupDiscoveryList of the core group (`core: true`, for `/api`) or of every other group
 * (for `/apis`), in the negotiated version.
 */
export function aggregatedDiscovery(
  types: readonly ResourceType[],
  options: { readonly core: boolean; readonly version: 'v2' | 'v2beta1' },
): Record<string, unknown> {
  const groups = groupsOf(types, true).filter((g) => (g.group === '') === options.core);
  const items = groups.map((g) => ({
    metadata: { name: g.group },
    versions: g.versions.map((version) => ({
      version,
      resources: types
        .filter((rt) => rt.group === g.group && rt.version === version)
        .map(resourceDiscovery)
        .sort(byResource),
      freshness: 'Current',
    })),
  }));
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${options.version}`,
    metadata: {},
    items,
  };
}

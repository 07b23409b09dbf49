/**
 * `/etc/containers/registries.conf` edited as upstream's EditRegistriesConfig does
 * (docs/reference/registries.md §3, steps 2–7): mirror sets become `[[registry]]` entries with
 * `[[registry.mirror]]` endpoints (`pull-from-mirror` digest-only or tag-only), blocked and insecure
 * scopes are added and propagated to what nests in them, and a registry nested in a mirrored
 * source inherits its mirrors. Pure; edits a copy.
 */
import type { MergedMirrorSet } from './merge-mirror-sets.js';
import { scopeIsNestedInsideScope } from './registry-scope.js';

interface RegistryMirror {
  location: string;
  insecure: boolean;
  'pull-from-mirror'?: 'digest-only' | 'tag-only' | 'all';
}

export interface RegistryEntry {
  prefix: string;
  location: string;
  insecure: boolean;
  blocked: boolean;
  mirror: RegistryMirror[];
}

/** The parts of containers/image V2RegistriesConf the controller edits; other keys kept as read. */
export interface RegistriesConf {
  readonly other: Readonly<Record<string, unknown>>;
  readonly registries: RegistryEntry[];
}

export interface RegistriesEdit {
  readonly insecure: readonly string[];
  readonly blocked: readonly string[];
  readonly digestMirrors: readonly MergedMirrorSet[];
  readonly tagMirrors: readonly MergedMirrorSet[];
}

/** The scope an entry matches: `prefix` when set, else `location`. */
export function registryScope(reg: Pick<RegistryEntry, 'prefix' | 'location'>): string {
  return reg.prefix !== '' ? reg.prefix : reg.location;
}

export function editRegistriesConfig(base: RegistriesConf, edit: RegistriesEdit): RegistriesConf {
  const registries: RegistryEntry[] = base.registries.map((r) => ({
    ...r,
    mirror: r.mirror.map((m) => ({ ...m })),
  }));
  const entry = (scope: string): RegistryEntry => {
    const found = registries.find((r) => registryScope(r) === scope);
    if (found !== undefined) return found;
    const wildcard = scope.startsWith('*.');
    const created: RegistryEntry = {
      prefix: wildcard ? scope : '',
      location: wildcard ? '' : scope,
      insecure: false,
      blocked: false,
      mirror: [],
    };
    registries.push(created);
    return created;
  };
  const addMirrors = (sets: readonly MergedMirrorSet[], pull: 'digest-only' | 'tag-only'): void => {
    for (const set of sets) {
      const reg = entry(set.source);
      if (set.neverContactSource) reg.blocked = true;
      for (const location of set.mirrors)
        reg.mirror.push({ location, insecure: false, 'pull-from-mirror': pull });
    }
  };
  addMirrors(edit.digestMirrors, 'digest-only');
  addMirrors(edit.tagMirrors, 'tag-only');
  // blocked entries first, so an insecure scope also reaches blocked scopes nested in it
  for (const scope of edit.blocked) entry(scope);
  for (const scope of edit.insecure) {
    entry(scope).insecure = true;
    for (const reg of registries) {
      if (scopeIsNestedInsideScope(registryScope(reg), scope)) reg.insecure = true;
      for (const m of reg.mirror)
        if (scopeIsNestedInsideScope(m.location, scope)) m.insecure = true;
    }
  }
  for (const scope of edit.blocked) {
    entry(scope).blocked = true;
    for (const reg of registries)
      if (scopeIsNestedInsideScope(registryScope(reg), scope)) reg.blocked = true;
  }
  const mirrored = registries.filter((r) => r.mirror.length > 0 && r.prefix === '');
  for (const reg of registries) {
    if (reg.mirror.length > 0) continue;
    const scope = registryScope(reg);
    const parent = mirrored
      .filter((m) => m.location !== scope && scopeIsNestedInsideScope(scope, m.location))
      .sort((a, b) => b.location.length - a.location.length)[0];
    if (parent === undefined) continue;
    const suffix = scope.slice(parent.location.length);
    reg.mirror = parent.mirror.map((m) => ({ ...m, location: `${m.location}${suffix}` }));
  }
  return { other: base.other, registries };
}

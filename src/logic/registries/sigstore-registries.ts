/**
 * `/etc/containers/registries.d/sigstore-registries.yaml` (docs/reference/registries.md §5;
 * upstream's generateSigstoreRegistriesdConfig): sigstore signatures are looked up as attachments
 * for every ClusterImagePolicy and ImagePolicy scope and, when the node's registries.conf is
 * written too, for every endpoint an image of that scope (or of a registry nested in it) may be
 * pulled from: its mirrors for digest and for tag references, and its own location. The endpoints
 * come from containers/image's FindRegistry and PullSourcesFromReference rules, applied to a
 * probe image under the scope as upstream does. Pure.
 */
import { marshalGoYaml, type JsonValue } from '../../lib/go-yaml.js';
import { err, ok, type Result } from '../../lib/result.js';
import { parseDockerReference } from './docker-reference.js';
import {
  registryScope,
  type RegistriesConf,
  type RegistryEntry,
} from './edit-registries-config.js';
import { scopeIsNestedInsideScope } from './registry-scope.js';

export const SigstoreRegistriesPath = '/etc/containers/registries.d/sigstore-registries.yaml';

// The probe image upstream resolves under each scope.
const ProbeDigest = `sha256:${'a'.repeat(64)}`;
const ProbeTag = 'aaa';
const ProbePath = '/a';
const ProbeHost = 'matched';

/** sysregistriesv2's refMatchingPrefix: the length of `ref` the prefix covers, or -1. */
function refMatchingPrefix(ref: string, prefix: string): number {
  if (prefix.startsWith('*.')) {
    const sub = prefix.slice(1);
    let index = ref.indexOf(sub);
    if (index < 0 || ref.slice(0, index).includes('/')) return -1;
    index += sub.length;
    if (index === ref.length) return index;
    return ':/@'.includes(ref.charAt(index)) ? index : -1;
  }
  if (ref.length < prefix.length || !ref.startsWith(prefix)) return -1;
  if (ref.length === prefix.length) return prefix.length;
  return ':/@'.includes(ref.charAt(prefix.length)) ? prefix.length : -1;
}

/**
 * FindRegistry: the entry with the longest prefix (its `prefix`, else its `location`) matching
 * `ref`, the first of equals.
 */
function findRegistry(conf: RegistriesConf, ref: string): RegistryEntry | undefined {
  let best: RegistryEntry | undefined;
  let bestLength = 0;
  for (const r of conf.registries) {
    const prefix = registryScope(r);
    if (refMatchingPrefix(ref, prefix) !== -1 && prefix.length > bestLength) {
      best = r;
      bestLength = prefix.length;
    }
  }
  return best;
}

/**
 * The endpoints (repository names) an image under `scope` is pulled from through `reg`: its
 * mirrors that serve digests, those that serve tags, and its location; a wildcard entry's empty
 * location is not one.
 */
function pullEndpoints(scope: string, reg: RegistryEntry): Result<string[], string> {
  let probe = scope.startsWith('*.') ? scope.replace('*', ProbeHost) : scope;
  const addedPath = !probe.includes('/');
  if (addedPath) probe += ProbePath;
  const parsed = parseDockerReference(probe);
  if (!parsed.ok) return err(`error parsing scope ${probe}: ${parsed.error}`);
  const repo = parsed.value.name;
  const prefix = registryScope(reg);
  const out: string[] = [];
  for (const [suffix, byDigest] of [
    [`@${ProbeDigest}`, true],
    [`:${ProbeTag}`, false],
  ] as const) {
    const ref = repo + suffix;
    const mirrors = reg.mirror.filter((m) =>
      byDigest ? m['pull-from-mirror'] !== 'tag-only' : m['pull-from-mirror'] !== 'digest-only',
    );
    for (const location of [...mirrors.map((m) => m.location), reg.location]) {
      if (location === '') continue;
      const at = refMatchingPrefix(ref, prefix);
      if (at < 0) return err(`invalid prefix '${prefix}' for reference '${ref}'`);
      const rewritten = parseDockerReference(location + ref.slice(at));
      if (!rewritten.ok) return err(`error getting sources for scope ${probe}: ${rewritten.error}`);
      const name = rewritten.value.name;
      out.push(addedPath && name.endsWith(ProbePath) ? name.slice(0, -ProbePath.length) : name);
    }
  }
  return ok(out);
}

/**
 * The file's YAML, or undefined when no policy has a scope. `registriesConf` is the node's
 * registries.conf as the controller writes it, undefined when it writes none.
 */
export function sigstoreRegistriesYaml(
  policyScopes: readonly string[],
  registriesConf: RegistriesConf | undefined,
): Result<string | undefined, string> {
  if (policyScopes.length === 0) return ok(undefined);
  const docker: Record<string, JsonValue> = {};
  const attach = { 'use-sigstore-attachments': true };
  for (const policyScope of policyScopes) {
    docker[policyScope] = attach;
    if (registriesConf === undefined) continue;
    const nested = registriesConf.registries
      .map(registryScope)
      .filter((s) => s !== policyScope && scopeIsNestedInsideScope(s, policyScope));
    for (const scope of [policyScope, ...nested]) {
      const reg = findRegistry(registriesConf, scope);
      if (reg === undefined) continue;
      const endpoints = pullEndpoints(scope, reg);
      if (!endpoints.ok)
        return err(
          `error adding clusterimagepolicy scope ${policyScope} relevant mirrors: ${endpoints.error}`,
        );
      for (const e of endpoints.value) docker[e] = attach;
    }
  }
  return ok(marshalGoYaml({ docker }));
}

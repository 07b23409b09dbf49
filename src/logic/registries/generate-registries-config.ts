/**
 * The Ignition of `99-<pool>-generated-registries` (docs/reference/registries.md §2–§6): the
 * cluster's Image registry sources, ImageDigestMirrorSets, ImageTagMirrorSets and
 * ImageContentSourcePolicies become `/etc/containers/registries.conf` (the role's template edited),
 * `/etc/containers/policy.json` and the search-registries drop-in; ClusterImagePolicies and
 * ImagePolicies add their sigstore requirements to policy.json, the namespaced
 * `/etc/crio/policies/<namespace>.json` and `registries.d/sigstore-registries.yaml`. Checks come
 * first, in upstream's order; the first error wins. Pure.
 */
import { parse, stringify } from 'smol-toml';
import type { ImageDigestMirrorSet } from '../../api/config/v1/image-digest-mirror-set.js';
import type { ImageTagMirrorSet } from '../../api/config/v1/image-tag-mirror-set.js';
import type { Image } from '../../api/config/v1/image.js';
import { MirrorPattern, SourcePattern } from '../../api/config/v1/registry-scopes.js';
import type { ImageContentSourcePolicy } from '../../api/operator/v1alpha1/image-content-source-policy.js';
import { err, ok, type Result } from '../../lib/result.js';
import { ignFile, type IgnitionFileOut } from '../kubelet-config/generate-kubelet-config.js';
import {
  editRegistriesConfig,
  type RegistriesConf,
  type RegistryEntry,
} from './edit-registries-config.js';
import { mergeMirrorSets, type MirrorEntry } from './merge-mirror-sets.js';
import { payloadBlockLists } from './payload-block-lists.js';
import { namespacedPolicyJsons, TemplatePolicyJson, updatePolicyJson } from './policy-json.js';
import { isValidRegistriesConfScope } from './registry-scope.js';
import type { ScopePolicies } from './sigstore-policies.js';
import { SigstoreRegistriesPath, sigstoreRegistriesYaml } from './sigstore-registries.js';
import { GeneratedSpecVersion } from '../../ignition/versions.js';

export const RegistriesConfPath = '/etc/containers/registries.conf';
export const PolicyJsonPath = '/etc/containers/policy.json';
export const SearchRegistriesPath =
  '/etc/containers/registries.conf.d/01-image-searchRegistries.conf';
export const crioPolicyPath = (namespace: string): string => `/etc/crio/policies/${namespace}.json`;

export interface RegistriesInputs {
  readonly image: Image;
  readonly digestMirrorSets: readonly ImageDigestMirrorSet[];
  readonly tagMirrorSets: readonly ImageTagMirrorSet[];
  readonly contentSourcePolicies: readonly ImageContentSourcePolicy[];
  /** The release image (ClusterVersion `status.desired.image`, at bootstrap the ControllerConfig's). */
  readonly releaseImage: string;
  /** The role template's registries.conf (TOML). */
  readonly baseRegistriesConf: string;
  /** The ClusterImagePolicy and ImagePolicy requirements (sigstore-policies.ts); absent: none. */
  readonly scopePolicies?: ScopePolicies;
}

export interface RegistriesOutput {
  readonly ignition: {
    readonly ignition: { version: typeof GeneratedSpecVersion };
    readonly storage: { files: IgnitionFileOut[] };
  };
  /** Blocked entries dropped because the release payload is pulled from them (logged upstream). */
  readonly skippedBlocked: readonly string[];
}

const Mirror = new RegExp(MirrorPattern);
const Source = new RegExp(SourcePattern);

function validateScopes(kind: string, scopes: readonly string[]): string | undefined {
  const bad = scopes.find((s) => !isValidRegistriesConfScope(s));
  return bad === undefined
    ? undefined
    : `invalid entry for ${kind} registries ${JSON.stringify(bad)}`;
}

function validateMirrorEntries(
  digest: readonly MirrorEntry[],
  tag: readonly MirrorEntry[],
): string | undefined {
  const policies = new Map<string, string>();
  for (const e of [...digest, ...tag]) {
    if (!Source.test(e.source)) return `invalid format for source ${JSON.stringify(e.source)}`;
    const policy = e.mirrorSourcePolicy ?? 'AllowContactingSource';
    const seen = policies.get(e.source);
    if (seen !== undefined && seen !== policy)
      return `conflicting mirrorSourcePolicy is set for the same source ${JSON.stringify(e.source)} in imagedigestmirrorsets, imagetagmirrorsets, or imagecontentsourcepolicies`;
    policies.set(e.source, policy);
    for (const m of e.mirrors ?? [])
      if (!Mirror.test(m)) return `invalid format for mirror ${JSON.stringify(m)}`;
    if (policy === 'NeverContactSource' && (e.mirrors ?? []).includes(e.source))
      return `cannot set mirrorSourcePolicy: NeverContactSource if the source ${JSON.stringify(e.source)} is one of the mirrors`;
  }
  return undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function decodeRegistriesConf(text: string): RegistriesConf {
  const { registry, ...other } = parse(text) as Record<string, unknown>;
  const registries: RegistryEntry[] = (Array.isArray(registry) ? registry : []).map((raw) => {
    const r = raw as Record<string, unknown>;
    const mirrors = Array.isArray(r['mirror']) ? (r['mirror'] as Record<string, unknown>[]) : [];
    return {
      prefix: str(r['prefix']),
      location: str(r['location']),
      insecure: r['insecure'] === true,
      blocked: r['blocked'] === true,
      mirror: mirrors.map((m) => ({
        location: str(m['location']),
        insecure: m['insecure'] === true,
        ...(typeof m['pull-from-mirror'] === 'string'
          ? { 'pull-from-mirror': m['pull-from-mirror'] as 'digest-only' | 'tag-only' | 'all' }
          : {}),
      })),
    };
  });
  return { other, registries };
}

/** TOML with the template's top-level keys first, then one `[[registry]]` per entry. */
function encodeRegistriesConf(conf: RegistriesConf): string {
  const registry = conf.registries.map((r) => ({
    prefix: r.prefix,
    location: r.location,
    insecure: r.insecure,
    blocked: r.blocked,
    ...(r.mirror.length > 0 ? { mirror: r.mirror } : {}),
  }));
  return `${stringify({ ...conf.other, ...(registry.length > 0 ? { registry } : {}) })}\n`;
}

function digestEntries(inputs: RegistriesInputs): MirrorEntry[] {
  return [
    ...inputs.digestMirrorSets.flatMap((s) => s.spec.imageDigestMirrors ?? []),
    ...inputs.contentSourcePolicies.flatMap((p) => p.spec.repositoryDigestMirrors ?? []),
  ];
}

const NoScopes: ScopePolicies = { cluster: new Map(), namespaced: new Map(), conflicts: [] };

/**
 * policy.json, the sigstore registries.d file and the namespaces' crio policies: written when
 * registries are allowed or blocked or any image policy exists (upstream makes the namespaced
 * files only then).
 */
function policyAndSigstoreFiles(input: {
  readonly blocked: readonly string[];
  readonly allowed: readonly string[];
  readonly payloadRepo: string;
  readonly scopePolicies: ScopePolicies | undefined;
  readonly registriesConf: RegistriesConf | undefined;
}): Result<IgnitionFileOut[], string> {
  const { blocked, allowed } = input;
  const { cluster, namespaced } = input.scopePolicies ?? NoScopes;
  if (allowed.length + blocked.length + cluster.size + namespaced.size === 0) return ok([]);
  const policy = updatePolicyJson({
    base: TemplatePolicyJson,
    blocked,
    allowed,
    payloadRepo: input.payloadRepo,
    clusterScopes: cluster,
  });
  if (!policy.ok) return err(`could not update policy json with new changes: ${policy.error}`);
  const perNamespace = namespacedPolicyJsons(policy.value, blocked, allowed, namespaced);
  if (!perNamespace.ok)
    return err(`could not update namespace policy JSON from imagepolicy: ${perNamespace.error}`);
  const sigstore = sigstoreRegistriesYaml(
    [...cluster.keys(), ...namespaced.keys()],
    input.registriesConf,
  );
  if (!sigstore.ok) return sigstore;
  return ok([
    ignFile(PolicyJsonPath, policy.value),
    ...(sigstore.value === undefined ? [] : [ignFile(SigstoreRegistriesPath, sigstore.value)]),
    ...[...perNamespace.value].map(([namespace, json]) => ignFile(crioPolicyPath(namespace), json)),
  ]);
}

export function generateRegistriesIgnition(
  inputs: RegistriesInputs,
): Result<RegistriesOutput, string> {
  const sources = inputs.image.spec.registrySources ?? {};
  const insecure = sources.insecureRegistries ?? [];
  const blocked = sources.blockedRegistries ?? [];
  const allowed = sources.allowedRegistries ?? [];
  const digest = digestEntries(inputs);
  const tag = inputs.tagMirrorSets.flatMap((s) => s.spec.imageTagMirrors ?? []);
  const lists = payloadBlockLists({
    releaseImage: inputs.releaseImage,
    blocked,
    allowed,
    insecure,
    digestMirrors: mergeMirrorSets(digest),
  });
  if (!lists.ok) return lists;
  const { registriesBlocked, policyBlocked, policyAllowed, skipped, payloadRepo } = lists.value;
  const files: IgnitionFileOut[] = [];
  const mirrorSetsExist =
    inputs.digestMirrorSets.length +
      inputs.tagMirrorSets.length +
      inputs.contentSourcePolicies.length >
    0;
  let registriesConf: RegistriesConf | undefined;
  if (insecure.length > 0 || registriesBlocked.length > 0 || mirrorSetsExist) {
    const invalid =
      validateScopes('insecure', insecure) ??
      validateScopes('blocked', registriesBlocked) ??
      validateMirrorEntries(digest, tag);
    if (invalid !== undefined)
      return err(`could not update registries config with new changes: ${invalid}`);
    registriesConf = editRegistriesConfig(decodeRegistriesConf(inputs.baseRegistriesConf), {
      insecure,
      blocked: registriesBlocked,
      digestMirrors: mergeMirrorSets(digest),
      tagMirrors: mergeMirrorSets(tag),
    });
    files.push(ignFile(RegistriesConfPath, encodeRegistriesConf(registriesConf)));
  }
  const policyFiles = policyAndSigstoreFiles({
    blocked: policyBlocked,
    allowed: policyAllowed,
    payloadRepo,
    scopePolicies: inputs.scopePolicies,
    registriesConf,
  });
  if (!policyFiles.ok) return policyFiles;
  files.push(...policyFiles.value);
  const search = sources.containerRuntimeSearchRegistries;
  if (search !== undefined && search.length > 0)
    files.push(
      ignFile(SearchRegistriesPath, `${stringify({ 'unqualified-search-registries': search })}\n`),
    );
  return ok({
    ignition: { ignition: { version: GeneratedSpecVersion }, storage: { files } },
    skippedBlocked: skipped,
  });
}

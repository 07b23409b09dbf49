/**
 * The Ignition of `99-<pool>-generated-registries` (docs/reference/registries.md §2–§6): the
 * cluster's Image registry sources, ImageDigestMirrorSets, ImageTagMirrorSets and
 * ImageContentSourcePolicies become `/etc/containers/registries.conf` (the role's template edited),
 * `/etc/containers/policy.json` and the search-registries drop-in. Checks come first, in upstream's
 * order; the first error wins. Pure.
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
import { isValidRegistriesConfScope } from './registry-scope.js';

export const RegistriesConfPath = '/etc/containers/registries.conf';
export const PolicyJsonPath = '/etc/containers/policy.json';
export const SearchRegistriesPath =
  '/etc/containers/registries.conf.d/01-image-searchRegistries.conf';

/** The role template's policy.json: accept anything, and the docker-daemon transport likewise. */
const BasePolicyJson = {
  default: [{ type: 'insecureAcceptAnything' }],
  transports: { 'docker-daemon': { '': [{ type: 'insecureAcceptAnything' }] } },
};

export interface RegistriesInputs {
  readonly image: Image;
  readonly digestMirrorSets: readonly ImageDigestMirrorSet[];
  readonly tagMirrorSets: readonly ImageTagMirrorSet[];
  readonly contentSourcePolicies: readonly ImageContentSourcePolicy[];
  /** The release image (ClusterVersion `status.desired.image`, at bootstrap the ControllerConfig's). */
  readonly releaseImage: string;
  /** The role template's registries.conf (TOML). */
  readonly baseRegistriesConf: string;
}

export interface RegistriesOutput {
  readonly ignition: {
    readonly ignition: { version: '3.5.0' };
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

type PolicyRequirement = { type: string };
type PolicyScopes = Record<string, PolicyRequirement[]>;

function policyJson(allowed: readonly string[], blocked: readonly string[]): string {
  const docker: PolicyScopes = {};
  const accept = [{ type: 'insecureAcceptAnything' }];
  const reject = [{ type: 'reject' }];
  let fallback = BasePolicyJson.default;
  if (blocked.length > 0) for (const s of blocked) docker[s] = reject;
  else if (allowed.length > 0) fallback = reject;
  for (const s of allowed) docker[s] = accept;
  const atomic = Object.fromEntries(
    Object.entries(docker).filter(([scope]) => scope.split('/').length - 1 < 3),
  );
  const policy = {
    default: fallback,
    transports: { ...BasePolicyJson.transports, docker, atomic },
  };
  return `${JSON.stringify(policy, null, 2)}\n`;
}

function digestEntries(inputs: RegistriesInputs): MirrorEntry[] {
  return [
    ...inputs.digestMirrorSets.flatMap((s) => s.spec.imageDigestMirrors ?? []),
    ...inputs.contentSourcePolicies.flatMap((p) => p.spec.repositoryDigestMirrors ?? []),
  ];
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
  if (insecure.length > 0 || registriesBlocked.length > 0 || mirrorSetsExist) {
    const invalid =
      validateScopes('insecure', insecure) ??
      validateScopes('blocked', registriesBlocked) ??
      validateScopes('allowed', allowed) ??
      validateMirrorEntries(digest, tag);
    if (invalid !== undefined)
      return err(`could not update registries config with new changes: ${invalid}`);
    const conf = editRegistriesConfig(decodeRegistriesConf(inputs.baseRegistriesConf), {
      insecure,
      blocked: registriesBlocked,
      digestMirrors: mergeMirrorSets(digest),
      tagMirrors: mergeMirrorSets(tag),
    });
    files.push(ignFile(RegistriesConfPath, encodeRegistriesConf(conf)));
  }
  if (policyAllowed.length > 0 || policyBlocked.length > 0) {
    if (
      policyAllowed.length > 0 &&
      policyBlocked.length > 0 &&
      !(policyAllowed.length === 1 && policyAllowed[0] === payloadRepo)
    )
      return err(
        'could not update policy json with new changes: invalid images config: only one of AllowedRegistries or BlockedRegistries may be specified',
      );
    files.push(ignFile(PolicyJsonPath, policyJson(policyAllowed, policyBlocked)));
  }
  const search = sources.containerRuntimeSearchRegistries;
  if (search !== undefined && search.length > 0)
    files.push(
      ignFile(SearchRegistriesPath, `${stringify({ 'unqualified-search-registries': search })}\n`),
    );
  return ok({
    ignition: { ignition: { version: '3.5.0' }, storage: { files } },
    skippedBlocked: skipped,
  });
}

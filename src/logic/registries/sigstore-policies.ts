/**
 * ClusterImagePolicy and ImagePolicy as policy.json requirements (docs/reference/registries.md §5):
 * each policy object becomes one `sigstoreSigned` requirement (upstream's policyItemFromSpec, with
 * containers/image's own checks of what a requirement must hold), collected per scope; an
 * ImagePolicy scope equal to or inside a ClusterImagePolicy scope is dropped and reported. The
 * requirements are plain objects whose keys are in containers/image's field order, so they encode
 * as upstream's. Pure.
 */
import type { ClusterImagePolicy } from '../../api/config/v1/cluster-image-policy.js';
import type { ImagePolicy } from '../../api/config/v1/image-policy.js';
import {
  MatchPolicy,
  PolicyType,
  type ImageSigstoreVerificationPolicy,
} from '../../api/config/v1/image-sigstore-policy.js';
import { err, ok, type Result } from '../../lib/result.js';
import { checkNormalizedName, isValidIdentityRemapPrefix } from './docker-reference.js';
import { scopeIsNestedInsideScope } from './registry-scope.js';

/** One policy.json requirement, keys in the order containers/image writes them. */
export type PolicyRequirement = Readonly<Record<string, unknown>>;

/** scope → requirements, in the order the policy objects were given. */
export type ScopeRequirements = ReadonlyMap<string, readonly PolicyRequirement[]>;

export interface ScopePolicies {
  /** ClusterImagePolicy scopes. */
  readonly cluster: ScopeRequirements;
  /** ImagePolicy scopes → namespace → requirements. */
  readonly namespaced: ReadonlyMap<string, ScopeRequirements>;
  /** ImagePolicies that lost scopes to a ClusterImagePolicy, with those scopes. */
  readonly conflicts: readonly ImagePolicyConflict[];
}

export interface ImagePolicyConflict {
  readonly namespace: string;
  readonly name: string;
  readonly scopes: readonly string[];
}

/** Go's `[]byte` in JSON: standard base64 of the decoded bytes; empty means absent. */
function bytes(data: string | undefined): string | undefined {
  if (data === undefined) return undefined;
  const encoded = Buffer.from(data, 'base64').toString('base64');
  return encoded === '' ? undefined : encoded;
}

/** Objects without the keys whose value is undefined (Go's omitempty). */
function compact(o: Record<string, unknown>): PolicyRequirement {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

function signedIdentity(
  identity: ImageSigstoreVerificationPolicy['signedIdentity'],
): Result<PolicyRequirement, string> {
  if (identity === undefined) return ok({ type: 'matchRepoDigestOrExact' });
  switch (identity.matchPolicy) {
    case MatchPolicy.RemapIdentity: {
      const prefix = identity.remapIdentity?.prefix ?? '';
      const signedPrefix = identity.remapIdentity?.signedPrefix ?? '';
      const bad = [prefix, signedPrefix].find((p) => !isValidIdentityRemapPrefix(p));
      if (bad !== undefined)
        return err(
          `error getting signedIdentity for RemapIdentity: prefix ${JSON.stringify(bad)} is not valid`,
        );
      return ok({ type: 'remapIdentity', prefix, signedPrefix });
    }
    case MatchPolicy.ExactRepository: {
      const repository = identity.exactRepository?.repository ?? '';
      const valid = checkNormalizedName(repository);
      if (!valid.ok)
        return err(
          `error getting signedIdentity for ExactRepository: Invalid format of dockerRepository ${JSON.stringify(repository)}: ${valid.error}`,
        );
      return ok({ type: 'exactRepository', dockerRepository: repository });
    }
    case MatchPolicy.MatchRepository:
      return ok({ type: 'matchRepository' });
    case MatchPolicy.MatchRepoDigestOrExact:
      return ok({ type: 'matchRepoDigestOrExact' });
    default:
      return err(`unknown signedIdentity match policy: ${String(identity.matchPolicy)}`);
  }
}

type RootFields = Partial<Record<'keyData' | 'fulcio' | 'rekorPublicKeyData' | 'pki', unknown>>;
type Root = ImageSigstoreVerificationPolicy['rootOfTrust'];

function fulcioRoot(f: Root['fulcioCAWithRekor']): Result<RootFields, string> {
  const caData = bytes(f?.fulcioCAData);
  const oidcIssuer = f?.fulcioSubject.oidcIssuer ?? '';
  const subjectEmail = f?.fulcioSubject.signedEmail ?? '';
  if (caData === undefined) return err('At least one of caPath and caData must be specified');
  if (oidcIssuer === '') return err('oidcIssuer not specified');
  if (subjectEmail === '') return err('subjectEmail not specified');
  return ok({
    fulcio: { caData, oidcIssuer, subjectEmail },
    rekorPublicKeyData: bytes(f?.rekorKeyData),
  });
}

function pkiRoot(p: Root['pki']): Result<RootFields, string> {
  const caRootsData = bytes(p?.caRootsData);
  const subjectEmail = p?.pkiCertificateSubject.email ?? '';
  const subjectHostname = p?.pkiCertificateSubject.hostname ?? '';
  if (caRootsData === undefined)
    return err('At least one of caRootsPath and caRootsData must be specified');
  if (subjectEmail === '' && subjectHostname === '')
    return err('At least one of subjectEmail, subjectHostname must be specified');
  return ok({
    pki: compact({
      caRootsData,
      caIntermediatesData: bytes(p?.caIntermediatesData),
      subjectEmail: subjectEmail === '' ? undefined : subjectEmail,
      subjectHostname: subjectHostname === '' ? undefined : subjectHostname,
    }),
  });
}

function rootOfTrust(root: Root): Result<RootFields, string> {
  switch (root.policyType) {
    case PolicyType.PublicKey:
      return ok({
        keyData: bytes(root.publicKey?.keyData),
        rekorPublicKeyData: bytes(root.publicKey?.rekorKeyData),
      });
    case PolicyType.FulcioCAWithRekor:
      return fulcioRoot(root.fulcioCAWithRekor);
    case PolicyType.PKI:
      return pkiRoot(root.pki);
    default:
      return ok({});
  }
}

/** Upstream's policyItemFromSpec, with NewPRSigstoreSigned's checks and its messages. */
export function sigstoreRequirement(
  policy: ImageSigstoreVerificationPolicy,
): Result<PolicyRequirement, string> {
  const root = rootOfTrust(policy.rootOfTrust);
  if (!root.ok) return root;
  const identity = signedIdentity(policy.signedIdentity);
  if (!identity.ok) return identity;
  const { keyData, fulcio, rekorPublicKeyData, pki } = root.value;
  const keySources = [keyData, fulcio, pki].filter((x) => x !== undefined).length;
  if (keySources !== 1)
    return err(
      'exactly one of keyPath, keyPaths, keyData, keyDatas, fulcio, and pki must be specified',
    );
  if (fulcio !== undefined && rekorPublicKeyData === undefined)
    return err(
      'At least one of rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas must be specified if fulcio is used',
    );
  return ok(
    compact({
      type: 'sigstoreSigned',
      keyData,
      fulcio,
      rekorPublicKeyData,
      pki,
      signedIdentity: identity.value,
    }),
  );
}

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/**
 * Upstream's getValidScopePolicies: every ClusterImagePolicy's requirement on each of its scopes,
 * then every ImagePolicy's on each of its scopes that no ClusterImagePolicy scope holds. The first
 * bad policy object fails the whole set.
 */
export function scopePolicies(
  clusterImagePolicies: readonly ClusterImagePolicy[],
  imagePolicies: readonly ImagePolicy[],
): Result<ScopePolicies, string> {
  const cluster = new Map<string, PolicyRequirement[]>();
  for (const cip of clusterImagePolicies) {
    const requirement = sigstoreRequirement(cip.spec.policy);
    if (!requirement.ok) return requirement;
    for (const scope of cip.spec.scopes) append(cluster, scope, requirement.value);
  }
  const namespaced = new Map<string, Map<string, PolicyRequirement[]>>();
  const conflicts: ImagePolicyConflict[] = [];
  for (const ip of imagePolicies) {
    const namespace = ip.metadata.namespace ?? '';
    const requirement = sigstoreRequirement(ip.spec.policy);
    if (!requirement.ok) return requirement;
    const conflicting: string[] = [];
    for (const scope of ip.spec.scopes) {
      if ([...cluster.keys()].some((c) => scopeIsNestedInsideScope(scope, c))) {
        conflicting.push(scope);
        continue;
      }
      let byNamespace = namespaced.get(scope);
      if (byNamespace === undefined)
        namespaced.set(scope, (byNamespace = new Map<string, PolicyRequirement[]>()));
      append(byNamespace, namespace, requirement.value);
    }
    if (conflicting.length > 0)
      conflicts.push({ namespace, name: ip.metadata.name ?? '', scopes: conflicting });
  }
  return ok({ cluster, namespaced, conflicts });
}

/** The ImagePolicy condition upstream writes for scopes it dropped. */
export const ConflictScopesReason = 'ConflictScopes';
export const ImagePolicyPending = 'Pending';

/** Its message; the scopes as Go's `%q` prints a string slice. */
export function describeConflictScopes(scopes: readonly string[]): string {
  return `has conflicting scope(s) [${scopes.map((s) => JSON.stringify(s)).join(' ')}] that equal to or nest inside existing clusterimagepolicy, only policy from clusterimagepolicy scope(s) will be applied`;
}

/**
 * Upstream's validateImagePolicyWithAllowedBlockedRegistries: with an allowed list, every policy
 * scope must lie inside an allowed entry; none may lie inside a blocked one. Scopes are checked in
 * sorted order (upstream walks a map, so which bad scope it names first varies).
 */
export function checkPolicyScopesAgainstLists(
  kind: 'clusterimagePolicy' | 'imagePolicy',
  scopes: Iterable<string>,
  allowed: readonly string[],
  blocked: readonly string[],
): string | undefined {
  if (allowed.length === 0 && blocked.length === 0) return undefined;
  const sorted = [...scopes].sort();
  for (const scope of sorted)
    if (allowed.length > 0 && !allowed.some((reg) => scopeIsNestedInsideScope(scope, reg)))
      return `${kind} configured for the scope ${scope} is not nested inside allowedRegistries`;
  for (const scope of sorted)
    if (blocked.some((reg) => scopeIsNestedInsideScope(scope, reg)))
      return `${kind} configured for the scope ${scope} is nested inside blockedRegistries`;
  return undefined;
}

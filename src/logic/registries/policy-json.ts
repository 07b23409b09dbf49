/**
 * `/etc/containers/policy.json` and the per-namespace `/etc/crio/policies/<namespace>.json` as the
 * registries controller writes them (docs/reference/registries.md §5; upstream's updatePolicyJSON
 * and updateNamespacedPolicyJSONs): the role template's policy edited for allowed and blocked
 * registries, then the ClusterImagePolicy requirements per scope; each namespace's file is that
 * policy plus its ImagePolicy requirements. Written as Go's `json.MarshalIndent` writes
 * containers/image's Policy: map keys sorted, requirement fields in struct order, two-space
 * indent, no trailing newline. Pure.
 */
import { goJsonString } from '../../lib/go/json-string.js';
import { err, ok, type Result } from '../../lib/result.js';
import {
  checkPolicyScopesAgainstLists,
  type PolicyRequirement,
  type ScopeRequirements,
} from './sigstore-policies.js';
import { isValidRegistriesConfScope } from './registry-scope.js';

/** The role templates' policy.json (`01-<role>-container-runtime/_base/files/policy.yaml`). */
export const TemplatePolicyJson = `{
    "default": [
        {
            "type": "insecureAcceptAnything"
        }
    ],
    "transports":
        {
            "docker-daemon":
                {
                    "": [{"type":"insecureAcceptAnything"}]
                }
        }
}
`;

type Scopes = Map<string, PolicyRequirement[]>;

interface Policy {
  readonly default: readonly PolicyRequirement[];
  readonly transports: Map<string, Scopes>;
}

const Accept: PolicyRequirement = { type: 'insecureAcceptAnything' };
const Reject: PolicyRequirement = { type: 'reject' };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function requirements(v: unknown): PolicyRequirement[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

function decodePolicy(text: string): Result<Policy, string> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return err(`error decoding policy json: ${(e as Error).message}`);
  }
  if (!isRecord(raw)) return err('error decoding policy json: not an object');
  const transports = new Map<string, Scopes>();
  if (isRecord(raw['transports']))
    for (const [transport, scopes] of Object.entries(raw['transports']))
      transports.set(
        transport,
        new Map(
          Object.entries(isRecord(scopes) ? scopes : {}).map(([s, r]) => [s, requirements(r)]),
        ),
      );
  return ok({ default: requirements(raw['default']), transports });
}

/** Go orders map keys by their UTF-8 bytes. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

function encodeValue(v: unknown, depth: number): string {
  const pad = '  '.repeat(depth + 1);
  const end = '  '.repeat(depth);
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v))
    return v.length === 0
      ? '[]'
      : `[\n${v.map((x) => pad + encodeValue(x, depth + 1)).join(',\n')}\n${end}]`;
  const entries =
    v instanceof Map
      ? [...(v as Map<string, unknown>).entries()].sort(([a], [b]) => byBytes(a, b))
      : Object.entries(v as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, x]) => `${pad}${goJsonString(k)}: ${encodeValue(x, depth + 1)}`).join(',\n')}\n${end}}`;
}

function encodePolicy(policy: Policy): string {
  return encodeValue({ default: policy.default, transports: policy.transports }, 0);
}

/** `atomic` does not take scopes of three or more path segments. */
const atomicScope = (scope: string): boolean => scope.split('/').length - 1 < 3;

export interface PolicyJsonInput {
  /** The role template's policy.json. */
  readonly base: string;
  readonly blocked: readonly string[];
  readonly allowed: readonly string[];
  /** The release payload's repository: the one allowed entry that may sit beside a blocked list. */
  readonly payloadRepo: string;
  readonly clusterScopes: ScopeRequirements;
}

/** updatePolicyJSON's checks, in its order; undefined when the input may be written. */
function policyJsonProblem(input: PolicyJsonInput): string | undefined {
  const { blocked, allowed } = input;
  if (
    allowed.length > 0 &&
    blocked.length > 0 &&
    !(allowed.length === 1 && allowed[0] === input.payloadRepo)
  )
    return 'invalid images config: only one of AllowedRegistries or BlockedRegistries may be specified';
  return checkPolicyScopesAgainstLists(
    'clusterimagePolicy',
    input.clusterScopes.keys(),
    allowed,
    blocked,
  );
}

function invalidScope(blocked: readonly string[], allowed: readonly string[]): string | undefined {
  for (const [kind, list] of [
    ['blocked', blocked],
    ['allowed', allowed],
  ] as const) {
    const bad = list.find((s) => !isValidRegistriesConfScope(s));
    if (bad !== undefined) return `invalid entry for ${kind} registries ${JSON.stringify(bad)}`;
  }
  return undefined;
}

/** Upstream's updatePolicyJSON; errors in its words. */
export function updatePolicyJson(input: PolicyJsonInput): Result<string, string> {
  const { blocked, allowed, clusterScopes } = input;
  const problem = policyJsonProblem(input);
  if (problem !== undefined) return err(problem);
  if (allowed.length === 0 && blocked.length === 0 && clusterScopes.size === 0)
    return ok(input.base);
  const invalid = invalidScope(blocked, allowed);
  if (invalid !== undefined) return err(invalid);
  const decoded = decodePolicy(input.base);
  if (!decoded.ok) return decoded;
  let fallback = decoded.value.default;
  const scopes: Scopes = new Map();
  if (allowed.length > 0) {
    fallback = [Reject];
    for (const reg of allowed) if (!clusterScopes.has(reg)) scopes.set(reg, [Accept]);
  }
  if (blocked.length > 0) {
    fallback = [Accept];
    for (const reg of blocked) scopes.set(reg, [Reject]);
  }
  for (const [scope, reqs] of clusterScopes)
    scopes.set(scope, [...(scopes.get(scope) ?? []), ...reqs]);
  const transports = new Map(decoded.value.transports);
  if (scopes.size > 0) {
    transports.set('docker', scopes);
    transports.set('atomic', new Map([...scopes].filter(([scope]) => atomicScope(scope))));
  }
  return ok(encodePolicy({ default: fallback, transports }));
}

/**
 * Upstream's updateNamespacedPolicyJSONs: for each namespace with ImagePolicy scopes, the cluster's
 * policy.json with those requirements appended under `docker` (and `atomic` where it can hold
 * them). Namespaces sorted, as upstream lists the files.
 */
export function namespacedPolicyJsons(
  clusterPolicyJson: string,
  blocked: readonly string[],
  allowed: readonly string[],
  namespacedScopes: ReadonlyMap<string, ScopeRequirements>,
): Result<ReadonlyMap<string, string>, string> {
  const invalid = checkPolicyScopesAgainstLists(
    'imagePolicy',
    namespacedScopes.keys(),
    allowed,
    blocked,
  );
  if (invalid !== undefined) return err(invalid);
  const byNamespace = new Map<string, Map<string, readonly PolicyRequirement[]>>();
  for (const [scope, namespaces] of namespacedScopes)
    for (const [namespace, reqs] of namespaces) {
      let scopes = byNamespace.get(namespace);
      if (scopes === undefined)
        byNamespace.set(namespace, (scopes = new Map<string, readonly PolicyRequirement[]>()));
      scopes.set(scope, reqs);
    }
  const out = new Map<string, string>();
  for (const namespace of [...byNamespace.keys()].sort()) {
    const decoded = decodePolicy(clusterPolicyJson);
    if (!decoded.ok)
      return err(decoded.error.replace('policy json', 'policy json for namespaced policies'));
    const transports = decoded.value.transports;
    const docker = transports.get('docker') ?? new Map<string, PolicyRequirement[]>();
    const atomic = transports.get('atomic') ?? new Map<string, PolicyRequirement[]>();
    transports.set('docker', docker);
    transports.set('atomic', atomic);
    for (const [scope, reqs] of byNamespace.get(namespace) ?? []) {
      docker.set(scope, [...(docker.get(scope) ?? []), ...reqs]);
      if (atomicScope(scope)) atomic.set(scope, [...(atomic.get(scope) ?? []), ...reqs]);
    }
    out.set(namespace, encodePolicy(decoded.value));
  }
  return ok(out);
}

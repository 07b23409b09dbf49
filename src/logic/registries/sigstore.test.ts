import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { ClusterImagePolicy } from '../../api/config/v1/cluster-image-policy.js';
import type { ImagePolicy } from '../../api/config/v1/image-policy.js';
import type { ImageSigstoreVerificationPolicy } from '../../api/config/v1/image-sigstore-policy.js';
import type { Image } from '../../api/config/v1/image.js';
import { checkNormalizedName, isValidIdentityRemapPrefix } from './docker-reference.js';
import { editRegistriesConfig } from './edit-registries-config.js';
import {
  crioPolicyPath,
  generateRegistriesIgnition,
  PolicyJsonPath,
  RegistriesConfPath,
  SearchRegistriesPath,
  type RegistriesInputs,
} from './generate-registries-config.js';
import { mergeMirrorSets, type MirrorEntry } from './merge-mirror-sets.js';
import { namespacedPolicyJsons, TemplatePolicyJson, updatePolicyJson } from './policy-json.js';
import {
  checkPolicyScopesAgainstLists,
  describeConflictScopes,
  scopePolicies,
  sigstoreRequirement,
  type PolicyRequirement,
  type ScopePolicies,
} from './sigstore-policies.js';
import { SigstoreRegistriesPath, sigstoreRegistriesYaml } from './sigstore-registries.js';

// Cases from upstream's container-runtime-config helpers_test.go (clusterImagePolicyTestCRs,
// imagePolicyTestCRs, TestGetValidScopePolicies, TestGenerateSigstoreRegistriesConfig,
// TestGeneratePolicyJSON, TestValidateClusterImagePolicyWithAllowedBlockedRegistries,
// TestUpdateNamespacedPolicyJSONs, TestImagePolicyConfigFileListDeterministicOrder, the
// ClusterImagePolicy case of TestUpdatePolicyJSON) and container_runtime_config_controller_test.go
// (TestClusterImagePolicyCreate, TestSigstoreRegistriesConfigIDMSandCIPCreate,
// TestImagePolicyCreate, TestRunImageBootstrap), translated from Go structs to the JSON they encode.

const FulcioData = 'dGVzdC1jYS1kYXRhLWRhdGE=';
const RekorKeyData = 'dGVzdC1yZWtvci1rZXktZGF0YQ==';
const KeyData = 'dGVzdC1rZXktZGF0YQ==';
const CertsData =
  'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJBVEE9Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0=';
const Digest = `sha256:${'0'.repeat(64)}`;
const Remap = {
  matchPolicy: 'RemapIdentity',
  remapIdentity: { prefix: 'test-remap-prefix', signedPrefix: 'test-remap-signed-prefix' },
} as const;
const Pki = {
  policyType: 'PKI',
  pki: {
    caRootsData: CertsData,
    caIntermediatesData: CertsData,
    pkiCertificateSubject: { email: 'test-user@example.com', hostname: 'my-host.example.com' },
  },
} as const;
const PublicKey = (keyData: string) =>
  ({ rootOfTrust: { policyType: 'PublicKey', publicKey: { keyData } } }) as const;

const cip = (
  name: string,
  scopes: string[],
  policy: ImageSigstoreVerificationPolicy,
): ClusterImagePolicy => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'ClusterImagePolicy',
  metadata: { name },
  spec: { scopes, policy },
});
const ip = (
  name: string,
  namespace: string,
  scopes: string[],
  policy: ImageSigstoreVerificationPolicy,
): ImagePolicy => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'ImagePolicy',
  metadata: { name, namespace },
  spec: { scopes, policy },
});

const Cluster = {
  cr0: cip('test-cr0', ['test0.com'], {
    rootOfTrust: {
      policyType: 'FulcioCAWithRekor',
      fulcioCAWithRekor: {
        fulcioCAData: FulcioData,
        rekorKeyData: RekorKeyData,
        fulcioSubject: {
          oidcIssuer: 'https://OIDC.example.com',
          signedEmail: 'test-user@example.com',
        },
      },
    },
    signedIdentity: Remap,
  }),
  cr1: cip('test-cr1', ['test0.com', 'test1.com'], {
    rootOfTrust: {
      policyType: 'PublicKey',
      publicKey: { keyData: KeyData, rekorKeyData: RekorKeyData },
    },
    signedIdentity: Remap,
  }),
  cr2: cip(
    'test-cr2',
    [
      'a.com/a1/a2',
      `a.com/a1/a2@${Digest}`,
      '*.example.com',
      'policy.scope',
      'foo.example.com/ns/repo',
    ],
    {
      rootOfTrust: {
        policyType: 'PublicKey',
        publicKey: { keyData: KeyData, rekorKeyData: RekorKeyData },
      },
    },
  ),
  cr3: cip('test-cr3', ['test3.com/ns/repo'], { rootOfTrust: Pki }),
};

const Namespaced = {
  cr0: ip('test-cr0', 'testnamespace', ['test0.com', 'test2.com'], PublicKey(KeyData)),
  cr1: ip(
    'test-cr1',
    'testnamespace',
    [
      'a.com/a1/a2',
      `a.com/a1/a2@${Digest}`,
      '*.example.com',
      'policy.scope',
      'foo.example.com/ns/repo',
    ],
    PublicKey(KeyData),
  ),
  cr2: ip('test-cr0', 'testnamespace', ['test2.com'], PublicKey(KeyData)),
  cr3: ip('test-cr3', 'test-1-namespace', ['test3.com'], PublicKey(KeyData)),
  cr4: ip('test-cr4', 'testnamespace', ['test4.com/ns-policy/repo'], { rootOfTrust: Pki }),
};

const FulcioRequirement = {
  type: 'sigstoreSigned',
  fulcio: {
    caData: FulcioData,
    oidcIssuer: 'https://OIDC.example.com',
    subjectEmail: 'test-user@example.com',
  },
  rekorPublicKeyData: RekorKeyData,
  signedIdentity: {
    type: 'remapIdentity',
    prefix: 'test-remap-prefix',
    signedPrefix: 'test-remap-signed-prefix',
  },
};
const KeyRequirement = {
  type: 'sigstoreSigned',
  keyData: KeyData,
  rekorPublicKeyData: RekorKeyData,
  signedIdentity: FulcioRequirement.signedIdentity,
};
const PkiRequirement = {
  type: 'sigstoreSigned',
  pki: {
    caRootsData: CertsData,
    caIntermediatesData: CertsData,
    subjectEmail: 'test-user@example.com',
    subjectHostname: 'my-host.example.com',
  },
  signedIdentity: { type: 'matchRepoDigestOrExact' },
};
const PlainKeyRequirement = {
  type: 'sigstoreSigned',
  keyData: KeyData,
  signedIdentity: { type: 'matchRepoDigestOrExact' },
};
const Accept = [{ type: 'insecureAcceptAnything' }];
const DockerDaemon = { '': Accept };

function policies(
  cips: readonly ClusterImagePolicy[],
  ips: readonly ImagePolicy[] = [],
): ScopePolicies {
  const r = scopePolicies(cips, ips);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const plain = (m: ReadonlyMap<string, unknown>): unknown =>
  Object.fromEntries(
    [...m].map(([k, v]) => [k, v instanceof Map ? plain(v as ReadonlyMap<string, unknown>) : v]),
  );

function clusterPolicyJson(p: ScopePolicies, allowed: string[] = [], blocked: string[] = []) {
  const r = updatePolicyJson({
    base: TemplatePolicyJson,
    allowed,
    blocked,
    payloadRepo: 'release-reg.io/image/release',
    clusterScopes: p.cluster,
  });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('sigstoreRequirement (policyItemFromSpec)', () => {
  it('Fulcio with Rekor, a public key, a PKI: the requirement as containers/image writes it', () => {
    const of = (p: ImageSigstoreVerificationPolicy) => {
      const r = sigstoreRequirement(p);
      if (!r.ok) throw new Error(r.error);
      return JSON.stringify(r.value);
    };
    // key order is containers/image's struct order, not sorted
    expect(of(Cluster.cr0.spec.policy)).toBe(JSON.stringify(FulcioRequirement));
    expect(of(Cluster.cr1.spec.policy)).toBe(JSON.stringify(KeyRequirement));
    expect(of(Cluster.cr3.spec.policy)).toBe(JSON.stringify(PkiRequirement));
    expect(of(PublicKey(KeyData))).toBe(JSON.stringify(PlainKeyRequirement));
  });

  it.each<[string, ImageSigstoreVerificationPolicy['signedIdentity'], PolicyRequirement]>([
    ['MatchRepository', { matchPolicy: 'MatchRepository' }, { type: 'matchRepository' }],
    [
      'ExactRepository',
      { matchPolicy: 'ExactRepository', exactRepository: { repository: 'quay.io/ns/repo' } },
      { type: 'exactRepository', dockerRepository: 'quay.io/ns/repo' },
    ],
    [
      'MatchRepoDigestOrExact',
      { matchPolicy: 'MatchRepoDigestOrExact' },
      { type: 'matchRepoDigestOrExact' },
    ],
  ])('signed identity %s', (_name, signedIdentity, expected) => {
    const r = sigstoreRequirement({
      ...PublicKey(KeyData),
      ...(signedIdentity === undefined ? {} : { signedIdentity }),
    });
    expect(r.ok && r.value['signedIdentity']).toEqual(expected);
  });

  it.each<[string, ImageSigstoreVerificationPolicy, string]>([
    [
      'a public key without key data',
      PublicKey(''),
      'exactly one of keyPath, keyPaths, keyData, keyDatas, fulcio, and pki must be specified',
    ],
    [
      'Fulcio without Rekor',
      {
        rootOfTrust: {
          policyType: 'FulcioCAWithRekor',
          fulcioCAWithRekor: {
            fulcioCAData: FulcioData,
            rekorKeyData: '',
            fulcioSubject: { oidcIssuer: 'https://o.example.com', signedEmail: 'a@b.c' },
          },
        },
      },
      'At least one of rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas must be specified if fulcio is used',
    ],
    [
      'Fulcio without an issuer',
      {
        rootOfTrust: {
          policyType: 'FulcioCAWithRekor',
          fulcioCAWithRekor: {
            fulcioCAData: FulcioData,
            rekorKeyData: RekorKeyData,
            fulcioSubject: { oidcIssuer: '', signedEmail: 'a@b.c' },
          },
        },
      },
      'oidcIssuer not specified',
    ],
    [
      'PKI without a subject',
      {
        rootOfTrust: {
          policyType: 'PKI',
          pki: { caRootsData: CertsData, pkiCertificateSubject: {} },
        },
      },
      'At least one of subjectEmail, subjectHostname must be specified',
    ],
    [
      'a remap prefix that is no host',
      {
        ...PublicKey(KeyData),
        signedIdentity: {
          matchPolicy: 'RemapIdentity',
          remapIdentity: { prefix: 'Not/A/Host', signedPrefix: 'quay.io' },
        },
      },
      'error getting signedIdentity for RemapIdentity: prefix "Not/A/Host" is not valid',
    ],
    [
      'an exact repository in upper case',
      {
        ...PublicKey(KeyData),
        signedIdentity: {
          matchPolicy: 'ExactRepository',
          exactRepository: { repository: 'quay.io/NS/repo' },
        },
      },
      'error getting signedIdentity for ExactRepository: Invalid format of dockerRepository "quay.io/NS/repo": invalid reference format: repository name must be lowercase',
    ],
    [
      'an unknown match policy',
      {
        ...PublicKey(KeyData),
        signedIdentity: { matchPolicy: 'Whatever' as 'MatchRepository' },
      },
      'unknown signedIdentity match policy: Whatever',
    ],
  ])('%s: containers/image’s error', (_name, policy, message) => {
    expect(sigstoreRequirement(policy)).toEqual({ ok: false, error: message });
  });

  it('reference checks as containers/image’s', () => {
    expect(isValidIdentityRemapPrefix('test-remap-prefix')).toBe(true);
    expect(isValidIdentityRemapPrefix('quay.io:5000/ns')).toBe(true);
    // like the original, a short name passes as a host (containers/image's FIXME)
    expect(isValidIdentityRemapPrefix('ns/repo')).toBe(true);
    expect(isValidIdentityRemapPrefix('NS/Repo')).toBe(false);
    expect(checkNormalizedName('busybox').ok).toBe(true);
    expect(checkNormalizedName('a'.repeat(64))).toEqual({
      ok: false,
      error: `invalid repository name (${'a'.repeat(64)}), cannot specify 64-byte hexadecimal strings`,
    });
    expect(checkNormalizedName('quay.io/ns/repo:tag').ok).toBe(true);
    expect(checkNormalizedName('quay.io/ns/re po')).toEqual({
      ok: false,
      error: 'invalid reference format',
    });
  });
});

describe('scopePolicies (TestGetValidScopePolicies)', () => {
  it('cluster CRs contain the same scope', () => {
    const p = policies([Cluster.cr0, Cluster.cr1]);
    expect(plain(p.cluster)).toEqual({
      'test0.com': [FulcioRequirement, KeyRequirement],
      'test1.com': [KeyRequirement],
    });
    expect(p.namespaced.size).toBe(0);
  });

  it('cluster and namespace CRs contain the same scope: the namespaced one is dropped and reported', () => {
    const p = policies([Cluster.cr0, Cluster.cr1], [Namespaced.cr0]);
    expect(plain(p.namespaced)).toEqual({
      'test2.com': { testnamespace: [PlainKeyRequirement] },
    });
    expect(p.conflicts).toEqual([
      { namespace: 'testnamespace', name: 'test-cr0', scopes: ['test0.com'] },
    ]);
    expect(describeConflictScopes(['test0.com', 'a.io'])).toBe(
      'has conflicting scope(s) ["test0.com" "a.io"] that equal to or nest inside existing clusterimagepolicy, only policy from clusterimagepolicy scope(s) will be applied',
    );
  });

  it('a bad policy object fails the whole set', () => {
    expect(scopePolicies([Cluster.cr0, cip('bad', ['x.io'], PublicKey(''))], [])).toEqual({
      ok: false,
      error:
        'exactly one of keyPath, keyPaths, keyData, keyDatas, fulcio, and pki must be specified',
    });
  });
});

describe('sigstoreRegistriesYaml (TestGenerateSigstoreRegistriesConfig)', () => {
  const cr2Scopes = [
    '*.example.com',
    'a.com/a1/a2',
    `a.com/a1/a2@${Digest}`,
    'foo.example.com/ns/repo',
    'policy.scope',
  ];
  const keys = (
    p: ScopePolicies,
    sets: { digest?: MirrorEntry[]; tag?: MirrorEntry[]; icsp?: MirrorEntry[] } = {},
  ): string[] => {
    const conf = editRegistriesConfig(
      { other: {}, registries: [] },
      {
        insecure: [],
        blocked: [],
        digestMirrors: mergeMirrorSets([...(sets.digest ?? []), ...(sets.icsp ?? [])]),
        tagMirrors: mergeMirrorSets(sets.tag ?? []),
      },
    );
    const r = sigstoreRegistriesYaml([...p.cluster.keys(), ...p.namespaced.keys()], conf);
    if (!r.ok) throw new Error(r.error);
    const doc = parseYaml(r.value ?? '') as {
      docker: Record<string, { 'use-sigstore-attachments': boolean }>;
    };
    for (const v of Object.values(doc.docker))
      expect(v).toEqual({ 'use-sigstore-attachments': true });
    return Object.keys(doc.docker).sort();
  };
  const sorted = (l: string[]) => [...l].sort();

  it('cip objects exist, icsp/idms/itms are empty', () => {
    expect(keys(policies([Cluster.cr2]))).toEqual(sorted(cr2Scopes));
  });

  it('cip has no relevant registries mirrors', () => {
    expect(
      keys(policies([Cluster.cr2]), {
        icsp: [{ source: 'x.com/x1/x2', mirrors: ['x-x1-x2.mirror/x1/x2'] }],
        digest: [{ source: 'y.com/y1/y2', mirrors: ['y-y1-y2.mirror/y1/y2'] }],
        tag: [{ source: 'z.com/z1/z2', mirrors: ['z-z1-z2.mirror/z1/z2'] }],
      }),
    ).toEqual(sorted(cr2Scopes));
  });

  it('cip scope a.com/a1/a2 is super scope of registries sources', () => {
    expect(
      keys(policies([Cluster.cr2]), {
        digest: [
          { source: 'a.com/a1/a2', mirrors: ['a-a1-a2.mirror/a1/a2'] },
          { source: 'a.com/a1/a2/a3', mirrors: ['a-a1-a2-a3.mirror/m1/m2/m3'] },
          { source: 'a.com/a1/a2/a3-1', mirrors: ['a-a1-a2-a3-1.mirror/m1/m2/m3'] },
          { source: 'x.com/x1/x2', mirrors: ['x-x1-x2.mirror/m1/m2'] },
        ],
      }),
    ).toEqual(
      sorted([
        ...cr2Scopes,
        'a-a1-a2-a3-1.mirror/m1/m2/m3',
        'a-a1-a2-a3.mirror/m1/m2/m3',
        'a-a1-a2.mirror/a1/a2',
        'a.com/a1/a2/a3',
        'a.com/a1/a2/a3-1',
      ]),
    );
  });

  it('cip scope a.com/a1/a2 nested in registries sources', () => {
    expect(
      keys(policies([Cluster.cr2]), {
        digest: [
          { source: 'a.com', mirrors: ['a.mirror'] },
          { source: 'a.com/a1', mirrors: ['a-a1.mirror/a1'] },
          { source: 'x.com/x1/x2', mirrors: ['x-x1-x2.mirror/x1/x2'] },
        ],
      }),
    ).toEqual(sorted([...cr2Scopes, 'a-a1.mirror/a1/a2']));
  });

  it('cip wildcard scope *.example.com is the mirror source', () => {
    expect(
      keys(policies([Cluster.cr2]), {
        digest: [{ source: '*.example.com', mirrors: ['our.mirror/example'] }],
      }),
    ).toEqual(sorted([...cr2Scopes, 'our.mirror/example/ns/repo', 'our.mirror/example']));
  });

  it('cip scope *.example.com and mirror source have wildcard matching', () => {
    expect(
      keys(policies([Cluster.cr2]), {
        digest: [
          { source: 'a.example.com', mirrors: ['a-example.mirror'] },
          {
            source: '*.x.example.com',
            mirrors: ['matched.example.mirror', 'star-x.example.mirror'],
          },
          { source: '*.scope', mirrors: ['start-scope.mirror'] },
          { source: 'x/x1/x2', mirrors: ['x-x1-x2.mirror/x1/x2'] },
        ],
      }),
    ).toEqual(
      sorted([
        ...cr2Scopes,
        'a-example.mirror',
        'a.example.com',
        'star-x.example.mirror',
        'matched.example.mirror',
        'start-scope.mirror',
      ]),
    );
  });

  it('imagepolicy objects exist, icsp/idms/itms are empty', () => {
    expect(keys(policies([], [Namespaced.cr1]))).toEqual(sorted(cr2Scopes));
  });

  it('cip and imagepolicy objects exist, icsp/idms/itms are empty', () => {
    expect(keys(policies([Cluster.cr2], [Namespaced.cr0]))).toEqual(
      sorted([...cr2Scopes, 'test0.com', 'test2.com']),
    );
  });

  it('tag-only mirrors count for tags; the file is ghodss/yaml’s', () => {
    const conf = editRegistriesConfig(
      { other: {}, registries: [] },
      {
        insecure: [],
        blocked: [],
        digestMirrors: [],
        tagMirrors: mergeMirrorSets([{ source: 'q.io/ns', mirrors: ['t.mirror/ns'] }]),
      },
    );
    const r = sigstoreRegistriesYaml(['*.q.io', 'q.io/ns'], conf);
    expect(r).toEqual({
      ok: true,
      value: [
        'docker:',
        "  '*.q.io':",
        '    use-sigstore-attachments: true',
        '  q.io/ns:',
        '    use-sigstore-attachments: true',
        '  t.mirror/ns:',
        '    use-sigstore-attachments: true',
        '',
      ].join('\n'),
    });
    expect(sigstoreRegistriesYaml([], conf)).toEqual({ ok: true, value: undefined });
  });
});

describe('policy.json with ClusterImagePolicies (TestGeneratePolicyJSON, TestUpdatePolicyJSON)', () => {
  it('requirements appended per scope; docker and atomic; the template’s default kept', () => {
    const json = clusterPolicyJson(policies([Cluster.cr0, Cluster.cr3]));
    const Expected = {
      default: Accept,
      transports: {
        atomic: { 'test0.com': [FulcioRequirement], 'test3.com/ns/repo': [PkiRequirement] },
        docker: { 'test0.com': [FulcioRequirement], 'test3.com/ns/repo': [PkiRequirement] },
        'docker-daemon': DockerDaemon,
      },
    };
    // byte for byte what Go's MarshalIndent writes: map keys sorted, no trailing newline
    expect(json).toBe(JSON.stringify(Expected, null, 2));
  });

  it('add ClusterImagePolicy CR to policy json: an allowed scope it covers is not accepted unsigned', () => {
    expect(
      JSON.parse(clusterPolicyJson(policies([Cluster.cr0]), ['allow.io', 'test0.com'])),
    ).toEqual({
      default: [{ type: 'reject' }],
      transports: {
        atomic: { 'allow.io': Accept, 'test0.com': [FulcioRequirement] },
        docker: { 'allow.io': Accept, 'test0.com': [FulcioRequirement] },
        'docker-daemon': DockerDaemon,
      },
    });
  });

  it('nothing to change: the template as it is', () => {
    expect(clusterPolicyJson(policies([]))).toBe(TemplatePolicyJson);
  });
});

describe('checkPolicyScopesAgainstLists (TestValidateClusterImagePolicyWithAllowedBlockedRegistries)', () => {
  it.each<[string, string[], string[], string[], string[], boolean]>([
    [
      'allowed and blocked registries are not set',
      [],
      [],
      ['example.com', 'test.registries.com'],
      ['exaple.app.com', 'testapp.registries.com'],
      true,
    ],
    [
      'success test allowed registries set',
      ['example.com', 'allowed.io/namespace1'],
      [],
      ['allowed.io/namespace1/policysigned', 'example.com'],
      ['allowed.io/namespace1/app/policysigned'],
      true,
    ],
    [
      'failure test allowed registries set',
      ['allowed.io/namespace1/namespace2'],
      [],
      ['allowed.io/policysigned'],
      [],
      false,
    ],
    [
      'success test blocked registries set',
      [],
      ['blocked.io/namespace1/namespace2', 'blocked.example.com/namespace1/namespace2'],
      ['allowed.io/policysigned', 'blocked.io'],
      ['allowed.io/namespace1/app/policysigned', 'blocked.example.com/app/policysigned'],
      true,
    ],
    [
      'failure test blocked registries set',
      [],
      ['blocked.io', 'blocker-reg.com/namespace1'],
      ['blocker-reg.com/namespace1/policysigned', 'blocked.io'],
      [],
      false,
    ],
    [
      'imagepolicy failure test allowed registries set',
      ['allowed.io/namespace1/namespace2'],
      [],
      [],
      ['allowed.io/app/policysigned'],
      false,
    ],
    [
      'imagepolicy failure test blocked registries set',
      [],
      ['blocked.io', 'blocker-reg.com/namespace1'],
      [],
      ['blocker-reg.com/namespace1/policysigned', 'blocked.io'],
      false,
    ],
  ])('%s', (_name, allowed, blocked, clusterScopes, namespaceScopes, valid) => {
    const problems = [
      checkPolicyScopesAgainstLists('clusterimagePolicy', clusterScopes, allowed, blocked),
      checkPolicyScopesAgainstLists('imagePolicy', namespaceScopes, allowed, blocked),
    ].filter((p) => p !== undefined);
    expect(problems.length === 0).toBe(valid);
  });

  it('upstream’s messages', () => {
    expect(
      checkPolicyScopesAgainstLists('clusterimagePolicy', ['allowed.io/p'], ['allowed.io/n/m'], []),
    ).toBe(
      'clusterimagePolicy configured for the scope allowed.io/p is not nested inside allowedRegistries',
    );
    expect(checkPolicyScopesAgainstLists('imagePolicy', ['blocked.io'], [], ['blocked.io'])).toBe(
      'imagePolicy configured for the scope blocked.io is nested inside blockedRegistries',
    );
  });
});

describe('namespacedPolicyJsons (TestUpdateNamespacedPolicyJSONs, TestImagePolicyConfigFileListDeterministicOrder)', () => {
  it('no ImagePolicy: no file', () => {
    const r = namespacedPolicyJsons(TemplatePolicyJson, [], [], new Map());
    expect(r.ok && r.value.size).toBe(0);
  });

  it('each namespace’s file inherits the cluster policy and adds its own scopes', () => {
    const p = policies(
      [Cluster.cr0, Cluster.cr1],
      [Namespaced.cr0, Namespaced.cr3, Namespaced.cr4],
    );
    const cluster = clusterPolicyJson(p);
    const clusterScopes = {
      'test0.com': [FulcioRequirement, KeyRequirement],
      'test1.com': [KeyRequirement],
    };
    expect(JSON.parse(cluster)).toEqual({
      default: Accept,
      transports: { atomic: clusterScopes, docker: clusterScopes, 'docker-daemon': DockerDaemon },
    });
    const r = namespacedPolicyJsons(cluster, [], [], p.namespaced);
    if (!r.ok) throw new Error(r.error);
    const testnamespace = {
      ...clusterScopes,
      'test2.com': [PlainKeyRequirement],
      'test4.com/ns-policy/repo': [PkiRequirement],
    };
    const test1 = { ...clusterScopes, 'test3.com': [PlainKeyRequirement] };
    expect([...r.value.keys()]).toEqual(['test-1-namespace', 'testnamespace']);
    expect(JSON.parse(r.value.get('testnamespace') ?? '')).toEqual({
      default: Accept,
      transports: { atomic: testnamespace, docker: testnamespace, 'docker-daemon': DockerDaemon },
    });
    expect(JSON.parse(r.value.get('test-1-namespace') ?? '')).toEqual({
      default: Accept,
      transports: { atomic: test1, docker: test1, 'docker-daemon': DockerDaemon },
    });
  });

  it('files in namespace order', () => {
    const scopes = new Map(
      ['zebra', 'alpha', 'delta', 'beta', 'gamma'].map((n) => [
        `${n}.io`,
        new Map([[`${n}-namespace`, [PlainKeyRequirement]]]),
      ]),
    );
    const out = generateRegistriesIgnition(
      inputs({ scopePolicies: { cluster: new Map(), namespaced: scopes, conflicts: [] } }),
    );
    if (!out.ok) throw new Error(out.error);
    expect(out.value.ignition.storage.files.map((f) => f.path)).toEqual([
      PolicyJsonPath,
      SigstoreRegistriesPath,
      ...['alpha', 'beta', 'delta', 'gamma', 'zebra'].map((n) => crioPolicyPath(`${n}-namespace`)),
    ]);
  });
});

// The controller tests' inputs.
const image = (sources: NonNullable<Image['spec']['registrySources']>): Image => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'Image',
  metadata: { name: 'cluster' },
  spec: { registrySources: sources },
});
const inputs = (o: Partial<RegistriesInputs>): RegistriesInputs => ({
  image: image({}),
  digestMirrorSets: [],
  tagMirrorSets: [],
  contentSourcePolicies: [],
  releaseImage: 'test.io/myuser/myimage:test',
  baseRegistriesConf:
    'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\n',
  ...o,
});

function filesOf(i: RegistriesInputs): Map<string, string> {
  const r = generateRegistriesIgnition(i);
  if (!r.ok) throw new Error(r.error);
  return new Map(
    r.value.ignition.storage.files.map((f) => [
      f.path,
      Buffer.from(f.contents.source.split(',')[1] ?? '', 'base64').toString('utf8'),
    ]),
  );
}

describe('the generated registries config with image policies (controller tests)', () => {
  const img = image({
    insecureRegistries: ['blah.io'],
    allowedRegistries: ['example.com'],
    containerRuntimeSearchRegistries: ['search-reg.io'],
  });
  const fooBar = Buffer.from('foo bar').toString('base64');

  it('TestClusterImagePolicyCreate: registries.conf, policy.json, the sigstore registries.d file, the search drop-in', () => {
    const files = filesOf(
      inputs({
        image: img,
        scopePolicies: policies([cip('image-policy', ['example.com'], PublicKey(fooBar))]),
      }),
    );
    expect([...files.keys()]).toEqual([
      RegistriesConfPath,
      PolicyJsonPath,
      SigstoreRegistriesPath,
      SearchRegistriesPath,
    ]);
    const signed = [
      {
        type: 'sigstoreSigned',
        keyData: fooBar,
        signedIdentity: { type: 'matchRepoDigestOrExact' },
      },
    ];
    expect(JSON.parse(files.get(PolicyJsonPath) ?? '')).toEqual({
      default: [{ type: 'reject' }],
      transports: {
        atomic: { 'example.com': signed },
        docker: { 'example.com': signed },
        'docker-daemon': DockerDaemon,
      },
    });
    expect(files.get(SigstoreRegistriesPath)).toBe(
      'docker:\n  example.com:\n    use-sigstore-attachments: true\n',
    );
  });

  it('TestSigstoreRegistriesConfigIDMSandCIPCreate: an IDMS beside a policy on another scope', () => {
    const files = filesOf(
      inputs({
        image: img,
        digestMirrorSets: [
          {
            apiVersion: 'config.openshift.io/v1',
            kind: 'ImageDigestMirrorSet',
            metadata: { name: 'built-in' },
            spec: {
              imageDigestMirrors: [
                { source: 'built-in-source.example.com', mirrors: ['built-in-mirror.example.com'] },
              ],
            },
          },
        ],
        scopePolicies: policies([
          cip('built-in-source.example.com', ['example.com'], PublicKey(fooBar)),
        ]),
      }),
    );
    expect([...files.keys()]).toHaveLength(4);
    expect(
      Object.keys(
        (parseYaml(files.get(SigstoreRegistriesPath) ?? '') as { docker: object }).docker,
      ),
    ).toEqual(['example.com']);
  });

  it('TestImagePolicyCreate: one crio policy file for the namespace', () => {
    const files = filesOf(
      inputs({
        image: img,
        scopePolicies: policies(
          [],
          [ip('image-policy', 'testnamespace', ['example.com'], PublicKey(fooBar))],
        ),
      }),
    );
    expect([...files.keys()]).toEqual([
      RegistriesConfPath,
      PolicyJsonPath,
      SigstoreRegistriesPath,
      crioPolicyPath('testnamespace'),
      SearchRegistriesPath,
    ]);
    const namespaced = JSON.parse(files.get(crioPolicyPath('testnamespace')) ?? '') as {
      transports: { docker: Record<string, unknown> };
    };
    // allowed example.com is accepted cluster-wide; the namespace also wants it signed
    expect(namespaced.transports.docker['example.com']).toEqual([
      { type: 'insecureAcceptAnything' },
      {
        type: 'sigstoreSigned',
        keyData: fooBar,
        signedIdentity: { type: 'matchRepoDigestOrExact' },
      },
    ]);
  });

  it('TestRunImageBootstrap: a cluster and a namespaced policy beside blocked and insecure registries', () => {
    const files = filesOf(
      inputs({
        image: image({
          insecureRegistries: ['insecure-reg-1.io', 'insecure-reg-2.io'],
          blockedRegistries: ['blocked-reg.io', 'release-reg.io'],
          containerRuntimeSearchRegistries: ['search-reg.io'],
        }),
        releaseImage: 'release-reg.io/myuser/myimage:test',
        scopePolicies: policies([Cluster.cr0], [Namespaced.cr2]),
      }),
    );
    expect([...files.keys()]).toEqual([
      RegistriesConfPath,
      PolicyJsonPath,
      SigstoreRegistriesPath,
      crioPolicyPath('testnamespace'),
      SearchRegistriesPath,
    ]);
    const policy = JSON.parse(files.get(PolicyJsonPath) ?? '') as {
      transports: { docker: Record<string, unknown> };
    };
    // the payload's registry is not blocked (no mirror reaches the payload)
    expect(Object.keys(policy.transports.docker).sort()).toEqual(['blocked-reg.io', 'test0.com']);
  });

  it('a policy scope outside the allowed registries fails the policy.json', () => {
    const r = generateRegistriesIgnition(
      inputs({
        image: image({ allowedRegistries: ['example.com'] }),
        scopePolicies: policies([cip('p', ['other.io'], PublicKey(fooBar))]),
      }),
    );
    expect(r).toEqual({
      ok: false,
      error:
        'could not update policy json with new changes: clusterimagePolicy configured for the scope other.io is not nested inside allowedRegistries',
    });
  });
});

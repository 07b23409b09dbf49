/**
 * The spec and status ClusterImagePolicy and ImagePolicy share (`types_image_policy.go`,
 * `types_cluster_image_policy.go` of config.openshift.io/v1): image scopes and one sigstore
 * verification policy (a root of trust: a public key, Fulcio CA with Rekor, or a PKI; and how the
 * signed identity must match). The registries controller turns each into `sigstoreSigned`
 * requirements of policy.json (docs/reference/registries.md §5).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Bytes, StringEnum } from '../../schema.js';
import { ConditionSchema } from '../../meta/v1/condition.js';

export const PolicyType = {
  PublicKey: 'PublicKey',
  FulcioCAWithRekor: 'FulcioCAWithRekor',
  PKI: 'PKI',
} as const;
type PolicyType = (typeof PolicyType)[keyof typeof PolicyType];

export const MatchPolicy = {
  MatchRepoDigestOrExact: 'MatchRepoDigestOrExact',
  MatchRepository: 'MatchRepository',
  ExactRepository: 'ExactRepository',
  RemapIdentity: 'RemapIdentity',
} as const;
type MatchPolicy = (typeof MatchPolicy)[keyof typeof MatchPolicy];

const Label = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const Domain = String.raw`((${Label}(?:\\.${Label})+(?::[0-9]+)?)|(localhost(?::[0-9]+)?))`;
const Path = '(?:(?:/[a-z0-9]+(?:(?:(?:[._]|__|[-]*)[a-z0-9]+)+)?)+)?';

/** The CEL rules of a signed-identity repository or prefix (tag and digest refused). */
const identityRules = [
  {
    rule: String.raw`self.matches('.*:([\\w][\\w.-]{0,127})$')? self.matches('^(localhost:[0-9]+)$'): true`,
    message:
      'invalid repository or prefix in the signedIdentity, should not include the tag or digest',
  },
  {
    rule: `self.matches('^${Domain}${Path}$')`,
    message:
      "invalid repository or prefix in the signedIdentity. The repository or prefix must starts with 'localhost' or a valid '.' separated domain. If contains registry paths, the path component names must start with at least one letter or number, with following parts able to be separated by one period, one or two underscore and multiple dashes.",
  },
];

const identity = (description: string) =>
  Type.String({ description, maxLength: 512, 'x-kubernetes-validations': identityRules });

/** A base64 PEM of `kind` (`CERTIFICATE`, `PUBLIC KEY`), as the CRD's CEL rules require. */
function pem(field: string, kind: string, limits: { minLength?: number; count?: boolean } = {}) {
  const rules = [
    {
      rule: `string(self).startsWith('-----BEGIN ${kind}-----')`,
      message: `the ${field} must start with base64 encoding of '-----BEGIN ${kind}-----'.`,
    },
    {
      rule: `string(self).endsWith('-----END ${kind}-----\\n') || string(self).endsWith('-----END ${kind}-----')`,
      message: `the ${field} must end with base64 encoding of '-----END ${kind}-----'.`,
    },
  ];
  if (limits.count === true)
    rules.push({
      rule: `string(self).findAll('-----BEGIN ${kind}-----').size() == string(self).findAll('-----END ${kind}-----').size()`,
      message: `${field} must be base64 encoding of valid PEM format data contain the same number of '-----BEGIN ${kind}-----' and '-----END ${kind}-----' markers.`,
    });
  return Bytes({
    maxLength: 8192,
    ...(limits.minLength === undefined ? {} : { minLength: limits.minLength }),
    'x-kubernetes-validations': rules,
  });
}

const Email = {
  rule: String.raw`self.matches('^\\S+@\\S+$')`,
  message: 'invalid email address',
};

const PublicKeyRootOfTrustSchema = Type.Object({
  keyData: pem('keyData', 'PUBLIC KEY', { minLength: 68 }),
  rekorKeyData: Type.Optional(pem('rekorKeyData', 'PUBLIC KEY')),
});

const FulcioCAWithRekorRootOfTrustSchema = Type.Object({
  fulcioCAData: pem('fulcioCAData', 'CERTIFICATE'),
  rekorKeyData: pem('rekorKeyData', 'PUBLIC KEY'),
  fulcioSubject: Type.Object({
    oidcIssuer: Type.String({
      maxLength: 2048,
      'x-kubernetes-validations': [
        { rule: 'isURL(self)', message: 'oidcIssuer must be a valid URL' },
      ],
    }),
    signedEmail: Type.String({ maxLength: 320, 'x-kubernetes-validations': [Email] }),
  }),
});

const PKIRootOfTrustSchema = Type.Object({
  caRootsData: pem('caRootsData', 'CERTIFICATE', { minLength: 72, count: true }),
  caIntermediatesData: Type.Optional(
    pem('caIntermediatesData', 'CERTIFICATE', { minLength: 72, count: true }),
  ),
  pkiCertificateSubject: Type.Object(
    {
      email: Type.Optional(Type.String({ maxLength: 320, 'x-kubernetes-validations': [Email] })),
      hostname: Type.Optional(
        Type.String({
          maxLength: 253,
          'x-kubernetes-validations': [
            {
              // Upstream's rule calls CEL's format library (Kubernetes 1.31 and later); the same
              // check as a regular expression is accepted by every server since CEL rules came.
              rule: "self.matches('^([*][.])?[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",
              message:
                "hostname must be a valid dns 1123 subdomain name, optionally prefixed by '*.'. It must consist only of lowercase alphanumeric characters, hyphens, periods and the optional preceding asterisk.",
            },
          ],
        }),
      ),
    },
    {
      'x-kubernetes-validations': [
        {
          rule: 'has(self.email) || has(self.hostname)',
          message: 'at least one of email or hostname must be set in pkiCertificateSubject',
        },
      ],
    },
  ),
});

const oneOfRootOfTrust = (type: string, field: string) => ({
  rule: `has(self.policyType) && self.policyType == '${type}' ? has(self.${field}) : !has(self.${field})`,
  message: `${field} is required when policyType is ${type}, and forbidden otherwise`,
});

const PolicyRootOfTrustSchema = Type.Object(
  {
    policyType: StringEnum([PolicyType.PublicKey, PolicyType.FulcioCAWithRekor, PolicyType.PKI], {
      description: 'policyType is the kind of root of trust: PublicKey, FulcioCAWithRekor or PKI.',
    }),
    publicKey: Type.Optional(PublicKeyRootOfTrustSchema),
    fulcioCAWithRekor: Type.Optional(FulcioCAWithRekorRootOfTrustSchema),
    pki: Type.Optional(PKIRootOfTrustSchema),
  },
  {
    'x-kubernetes-validations': [
      oneOfRootOfTrust(PolicyType.PKI, 'pki'),
      oneOfRootOfTrust(PolicyType.PublicKey, 'publicKey'),
      oneOfRootOfTrust(PolicyType.FulcioCAWithRekor, 'fulcioCAWithRekor'),
    ],
  },
);

const oneOfIdentity = (policy: string, field: string) => ({
  rule: `(has(self.matchPolicy) && self.matchPolicy == '${policy}') ? has(self.${field}) : !has(self.${field})`,
  message: `${field} is required when matchPolicy is ${policy}, and forbidden otherwise`,
});

const PolicyIdentitySchema = Type.Object(
  {
    matchPolicy: StringEnum(
      [
        MatchPolicy.MatchRepoDigestOrExact,
        MatchPolicy.MatchRepository,
        MatchPolicy.ExactRepository,
        MatchPolicy.RemapIdentity,
      ],
      { description: 'matchPolicy is how the signed identity must match the image.' },
    ),
    exactRepository: Type.Optional(
      Type.Object({ repository: identity('repository the signature must name.') }),
    ),
    remapIdentity: Type.Optional(
      Type.Object({
        prefix: identity('prefix of the image reference to replace.'),
        signedPrefix: identity('signedPrefix replaces prefix before matching.'),
      }),
    ),
  },
  {
    'x-kubernetes-validations': [
      oneOfIdentity(MatchPolicy.ExactRepository, 'exactRepository'),
      oneOfIdentity(MatchPolicy.RemapIdentity, 'remapIdentity'),
    ],
  },
);

const ImageSigstoreVerificationPolicySchema = Type.Object({
  rootOfTrust: PolicyRootOfTrustSchema,
  signedIdentity: Type.Optional(PolicyIdentitySchema),
});
export type ImageSigstoreVerificationPolicy = Static<typeof ImageSigstoreVerificationPolicySchema>;

const ScopeRules = [
  {
    rule: "size(self.split('/')[0].split('.')) == 1 ? self.split('/')[0].split('.')[0].split(':')[0] == 'localhost' : true",
    message:
      "invalid image scope format, scope must contain a fully qualified domain name or 'localhost'",
  },
  {
    rule: String.raw`self.contains('*') ? self.matches('^\\*(?:\\.${Label})+$') : true`,
    message:
      'invalid image scope with wildcard, a wildcard can only be at the start of the domain and is only supported for subdomain matching, not path matching',
  },
  {
    rule: String.raw`!self.contains('*') ? self.matches('^(${Domain}${Path})(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}))?$') : true`,
    message: 'invalid repository namespace or image specification in the image scope',
  },
];

export const ImagePolicySpecSchema = Type.Object(
  {
    scopes: Type.Array(Type.String({ maxLength: 512, 'x-kubernetes-validations': ScopeRules }), {
      description:
        'scopes are the registries, repositories or images (host[:port][/path][:tag][@digest], or *.host) the policy applies to.',
      maxItems: 256,
      'x-kubernetes-list-type': 'set',
    }),
    policy: ImageSigstoreVerificationPolicySchema,
  },
  { description: 'spec contains the configuration for the policy.' },
);

export const ImagePolicyStatusSchema = Type.Object(
  {
    conditions: Type.Optional(
      Type.Array(ConditionSchema, {
        maxItems: 8,
        minItems: 1,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
  },
  { description: 'status contains the observed state of the policy.' },
);

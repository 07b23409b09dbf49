/**
 * certificates.k8s.io/v1 CertificateSigningRequest: how a node asks for its client certificate
 * (TLS bootstrapping). The requester's identity is set by the server (`spec.username`, `groups`,
 * `uid`, `extra`); `status.conditions` change only through `/approval` (Approved, Denied) and
 * `/status` (Failed, and `status.certificate` from the signer).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Bytes, DateTime, Int32 } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';

/** The signer of the kubelet's client certificate (`CN=system:node:<name>`, `O=system:nodes`). */
export const KubeletClientSigner = 'kubernetes.io/kube-apiserver-client-kubelet';

export const CsrConditionType = {
  Approved: 'Approved',
  Denied: 'Denied',
  Failed: 'Failed',
} as const;
export type CsrConditionType = (typeof CsrConditionType)[keyof typeof CsrConditionType];

/** Every `spec.usages` value the API accepts (KeyUsage in certificates/v1), in upstream's order. */
export const KeyUsages = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
] as const;

/** What a kubelet asks for its client certificate. */
export const KubeletClientUsages = [
  'digital signature',
  'key encipherment',
  'client auth',
] as const;

const CsrConditionSchema = Type.Object({
  type: Type.String(),
  status: Type.String(),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  lastUpdateTime: Type.Optional(DateTime()),
  lastTransitionTime: Type.Optional(DateTime()),
});
export type CsrCondition = Static<typeof CsrConditionSchema>;

const CsrSpecSchema = Type.Object({
  /** A PEM `CERTIFICATE REQUEST`, base64 on the wire. */
  request: Bytes(),
  signerName: Type.String(),
  expirationSeconds: Type.Optional(Int32()),
  usages: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })),
  username: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  groups: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })),
  extra: Type.Optional(
    Type.Unsafe<Record<string, string[]>>({
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    }),
  ),
});

const CsrStatusSchema = Type.Object({
  conditions: Type.Optional(
    Type.Array(CsrConditionSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    }),
  ),
  /** PEM `CERTIFICATE` blocks, base64 on the wire; set once by the signer. */
  certificate: Type.Optional(Bytes()),
});
export type CsrStatus = Static<typeof CsrStatusSchema>;

export const CertificateSigningRequestSchema = kindSchema(
  'CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by submitting a certificate signing request, and having it asynchronously approved and issued.',
  {
    spec: CsrSpecSchema,
    status: Type.Optional(CsrStatusSchema),
  },
);
export type CertificateSigningRequest = Static<typeof CertificateSigningRequestSchema>;

/** The condition of `type` with status True, if the CSR has one. */
export function csrCondition(
  csr: { readonly status?: CsrStatus },
  type: CsrConditionType,
): CsrCondition | undefined {
  return csr.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/** The CSR with one more condition of `type`, status True, stamped `now` (RFC 3339). */
export function withCondition({
  csr,
  type,
  reason,
  message,
  now,
}: {
  readonly csr: CertificateSigningRequest;
  readonly type: CsrConditionType;
  readonly reason: string;
  readonly message: string;
  readonly now: string;
}): CertificateSigningRequest {
  const condition: CsrCondition = {
    type,
    status: 'True',
    reason,
    message,
    lastUpdateTime: now,
    lastTransitionTime: now,
  };
  return {
    ...csr,
    status: { ...csr.status, conditions: [...(csr.status?.conditions ?? []), condition] },
  };
}

/**
 * certificates.k8s.io/v1 CertificateSigningRequest: cluster-scoped, with the approval and status
 * subresources; the server sets the requester on create and keeps spec and status apart on update
 * (store/csr-strategy.ts); the printer of `kubectl get csr`; the protobuf body of `kubectl
 * certificate approve|deny` (field numbers of `k8s.io/api/certificates/v1/generated.proto`).
 */
import { CertificateSigningRequestSchema } from '../../api/certificates/v1/certificate-signing-request.js';
import { err, ok, type Result } from '../../lib/result.js';
import type { KubeObject } from '../resource-store.js';
import { humanDuration } from '../http/human-duration.js';
import { at, list, str } from '../http/json-access.js';
import { age, name } from '../http/printer-cells.js';
import {
  UpdateMeta,
  decodeUnknown,
  objectMeta,
  protobufBase64,
  protobufFields,
  protobufText,
  protobufTime,
  type ProtobufError,
} from '../http/protobuf.js';
import { AgeColumn, NameColumn, column, type Printer } from '../http/table-types.js';
import { csrFieldErrors, prepareCsrForCreate, prepareCsrForUpdate } from '../store/csr-strategy.js';
import type { BuiltInKind } from './built-in-kind.js';

/** `Pending`, `Approved`, `Denied`, then `,Failed` and `,Issued` (extractCSRStatus). */
function csrCondition(csr: KubeObject): string {
  const types = new Set(list(at(csr, 'status', 'conditions')).map((c) => str(at(c, 'type'))));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (str(at(csr, 'status', 'certificate')) !== '') status += ',Issued';
  return status;
}

const certificateSigningRequestPrinter: Printer = {
  columns: [
    NameColumn,
    AgeColumn,
    column(
      'SignerName',
      'string',
      'signerName indicates the requested signer, and is a qualified name.',
    ),
    column(
      'Requestor',
      'string',
      'request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block. When serialized as JSON or YAML, the data is additionally base64-encoded.',
    ),
    column(
      'RequestedDuration',
      'string',
      'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.',
    ),
    column(
      'Condition',
      'string',
      'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".',
    ),
  ],
  row(csr, now) {
    const signer = str(at(csr, 'spec', 'signerName'));
    const seconds = at(csr, 'spec', 'expirationSeconds');
    return {
      cells: [
        name(csr),
        age(csr, now),
        signer === '' ? '<none>' : signer,
        str(at(csr, 'spec', 'username')),
        typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>',
        csrCondition(csr),
      ],
    };
  },
};

function csrSpec(buf: Uint8Array): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  const all = protobufFields(buf);
  const strings: Readonly<Record<number, string>> = { 2: 'username', 3: 'uid', 7: 'signerName' };
  for (const f of all) {
    const key = strings[f.number];
    if (key !== undefined) spec[key] = protobufText(f);
    else if (f.number === 1) spec['request'] = protobufBase64(f);
    else if (f.number === 8 && f.varint !== undefined) spec['expirationSeconds'] = Number(f.varint);
  }
  const usages = all.filter((f) => f.number === 5).map(protobufText);
  const groups = all.filter((f) => f.number === 4).map(protobufText);
  if (usages.length > 0) spec['usages'] = usages;
  if (groups.length > 0) spec['groups'] = groups;
  return spec;
}

function csrConditionMessage(buf: Uint8Array): Record<string, unknown> {
  const condition: Record<string, unknown> = {};
  const strings: Readonly<Record<number, string>> = {
    1: 'type',
    6: 'status',
    2: 'reason',
    3: 'message',
  };
  for (const f of protobufFields(buf)) {
    const key = strings[f.number];
    if (key !== undefined) condition[key] = protobufText(f);
    else if (f.number === 4 || f.number === 5) {
      const at = protobufTime(f);
      if (at !== undefined)
        condition[f.number === 4 ? 'lastUpdateTime' : 'lastTransitionTime'] = at;
    }
  }
  return condition;
}

function csrStatus(buf: Uint8Array): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  const all = protobufFields(buf);
  const conditions = all.filter((f) => f.number === 1 && f.bytes !== undefined);
  if (conditions.length > 0)
    status['conditions'] = conditions.map((f) => csrConditionMessage(f.bytes ?? new Uint8Array()));
  const certificate = all.find((f) => f.number === 2);
  if (certificate !== undefined && (certificate.bytes?.length ?? 0) > 0)
    status['certificate'] = protobufBase64(certificate);
  return status;
}

/** A protobuf CertificateSigningRequest body as the JSON object the store accepts. */
export function decodeCertificateSigningRequest(
  body: Uint8Array,
): Result<Record<string, unknown>, ProtobufError> {
  const unknown = decodeUnknown(body);
  if (!unknown.ok) return unknown;
  const { apiVersion, kind, raw } = unknown.value;
  if (kind !== 'CertificateSigningRequest')
    return err({ kind: 'ProtobufDecodeError', reason: `unexpected kind ${JSON.stringify(kind)}` });
  try {
    const top = protobufFields(raw);
    const part = (n: number): Uint8Array | undefined => top.find((f) => f.number === n)?.bytes;
    const metadata = part(1);
    const spec = part(2);
    const status = part(3);
    return ok({
      apiVersion: apiVersion === '' ? 'certificates.k8s.io/v1' : apiVersion,
      kind,
      metadata: metadata === undefined ? {} : objectMeta(metadata, UpdateMeta),
      spec: spec === undefined ? {} : csrSpec(spec),
      ...(status === undefined ? {} : { status: csrStatus(status) }),
    });
  } catch (e) {
    return err({ kind: 'ProtobufDecodeError', reason: (e as Error).message });
  }
}

export const CertificatesCertificateSigningRequest: BuiltInKind = {
  group: 'certificates.k8s.io',
  version: 'v1',
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  namespaced: false,
  schema: CertificateSigningRequestSchema,
  shortNames: ['csr'],
  subresources: ['approval', 'status'],
  strategy: {
    statusOnCreate: 'drop',
    prepareForCreate: prepareCsrForCreate,
    prepareForUpdate: prepareCsrForUpdate,
    fieldErrors: csrFieldErrors,
  },
  printer: certificateSigningRequestPrinter,
  protobuf: decodeCertificateSigningRequest,
};

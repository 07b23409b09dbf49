/**
 * CertificateSigningRequest's registry strategy and validation, as Kubernetes' certificates
 * strategy (`pkg/registry/certificates/certificates/strategy.go`) and `validation.go` define them:
 *
 * - create: the requester (`spec.username`, `groups`, `uid`) is set by the server from the caller,
 *   never taken from the body; status starts empty; `spec.request` must be a PEM `CERTIFICATE
 *   REQUEST` whose signature verifies; `signerName` and `usages` are required;
 * - update of the object: spec and status stay as they are (only metadata changes);
 * - `/approval`: only the Approved and Denied conditions change;
 * - `/status`: the Failed (and other) conditions and `status.certificate`, which is set once
 *   (`updates may not modify existing certificate content`) and holds only `CERTIFICATE` blocks;
 * - conditions: Approved, Denied and Failed only with status True, Approved and Denied mutually
 *   exclusive, none removed once present; their timestamps filled in.
 *
 * The rules and messages: docs/reference/tls-bootstrap.md §3–4.
 */
import type { UpdateRequest } from './kind-strategy.js';
import { X509Certificate } from 'node:crypto';
import {
  CsrConditionType,
  KeyUsages,
} from '../../api/certificates/v1/certificate-signing-request.js';
import {
  FieldErrorType,
  forbiddenField,
  invalidField,
  notSupportedField,
  requiredField,
  type FieldError,
} from '../../api/meta/v1/field-error.js';
import {
  checkCertificateRequest,
  decodePemBlocks,
} from '../../logic/certificates/certificate-request.js';
import type { KubeObject, UserInfo, WriteSubresource } from '../resource-store.js';
import { cloneJson, isJsonMap, type JsonMap } from './json.js';
import { errorText } from '../../lib/error-text.js';

const ApprovalTypes: ReadonlySet<string> = new Set([
  CsrConditionType.Approved,
  CsrConditionType.Denied,
]);
/** Condition types that may only be True (`trueConditionTypes`). */
const TrueOnlyTypes: ReadonlySet<string> = new Set([...ApprovalTypes, CsrConditionType.Failed]);
const AllStatuses = ['False', 'True', 'Unknown'];
const MinExpirationSeconds = 600;

const specOf = (obj: KubeObject): JsonMap => (isJsonMap(obj['spec']) ? obj['spec'] : {});
const statusOf = (obj: KubeObject): JsonMap => (isJsonMap(obj['status']) ? obj['status'] : {});

function conditionsOf(obj: KubeObject): JsonMap[] {
  const conditions = statusOf(obj)['conditions'];
  return Array.isArray(conditions) ? conditions.filter(isJsonMap) : [];
}

function setConditions(obj: KubeObject, conditions: JsonMap[]): void {
  const status = statusOf(obj);
  if (conditions.length === 0) delete status['conditions'];
  else status['conditions'] = conditions;
  obj['status'] = status;
}

/** `csrStrategy.PrepareForCreate`: the requester from authentication, an empty status. */
export function prepareCsrForCreate(obj: KubeObject, user: UserInfo): void {
  const spec = specOf(obj);
  spec['username'] = user.name;
  if (user.uid === undefined || user.uid === '') delete spec['uid'];
  else spec['uid'] = user.uid;
  if (user.groups.length === 0) delete spec['groups'];
  else spec['groups'] = [...user.groups];
  delete spec['extra'];
  obj['spec'] = spec;
  delete obj['status'];
}

/**
 * Keeps the conditions of `old` whose type `keep` selects, the rest from `next`, in `next`'s order
 * (kept ones where `next` has them, the others after).
 */
function mergeConditions(old: KubeObject, next: KubeObject, keep: (type: string) => boolean): void {
  const before = conditionsOf(old);
  const kept = (type: unknown) => before.find((c) => c['type'] === type);
  const merged: JsonMap[] = [];
  for (const c of conditionsOf(next)) {
    if (!keep(String(c['type']))) merged.push(c);
    else {
      const instance = kept(c['type']);
      if (instance !== undefined) merged.push(cloneJson(instance));
    }
  }
  for (const c of before)
    if (keep(String(c['type'])) && !merged.some((m) => m['type'] === c['type']))
      merged.push(cloneJson(c));
  setConditions(next, merged);
}

/** `populateConditionTimestamps`: new conditions get now; a kept status keeps its transition time. */
function stampConditions(old: KubeObject, next: KubeObject, now: string): void {
  const before = conditionsOf(old);
  for (const c of conditionsOf(next)) {
    if (typeof c['lastUpdateTime'] !== 'string') c['lastUpdateTime'] = now;
    if (typeof c['lastTransitionTime'] === 'string') continue;
    const same = before.find((o) => o['type'] === c['type']);
    c['lastTransitionTime'] =
      same !== undefined &&
      same['status'] === c['status'] &&
      typeof same['lastTransitionTime'] === 'string'
        ? same['lastTransitionTime']
        : now;
  }
}

/**
 * The subresource split of an update: `next` arrives as the generic preparation left it (the
 * request's object, or `old` with the request's status for `/status` and `/approval`).
 */
export function prepareCsrForUpdate(
  old: KubeObject,
  next: KubeObject,
  subresource: WriteSubresource | undefined,
  { now }: UpdateRequest,
): void {
  next['spec'] = cloneJson(specOf(old));
  if (subresource === undefined) {
    if (old['status'] === undefined) delete next['status'];
    else next['status'] = cloneJson(old['status']);
    return;
  }
  if (subresource === 'approval') {
    const certificate = statusOf(old)['certificate'];
    const status = statusOf(next);
    if (certificate === undefined) delete status['certificate'];
    else status['certificate'] = certificate;
    next['status'] = status;
    mergeConditions(old, next, (type) => !ApprovalTypes.has(type));
  } else {
    mergeConditions(old, next, (type) => ApprovalTypes.has(type));
  }
  stampConditions(old, next, now);
  if (Object.keys(statusOf(next)).length === 0) delete next['status'];
}

function validateConditions(obj: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(obj).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    const type = typeof c['type'] === 'string' ? c['type'] : '';
    const status = typeof c['status'] === 'string' ? c['status'] : '';
    if (type === '') errors.push(requiredField(`${path}.type`));
    const allowed = TrueOnlyTypes.has(type) ? ['True'] : AllStatuses;
    if (status === '') errors.push(requiredField(`${path}.status`));
    else if (!allowed.includes(status))
      errors.push(notSupportedField(`${path}.status`, status, allowed));
    if (type === CsrConditionType.Approved) approved = true;
    if (type === CsrConditionType.Denied) denied = true;
    if (ApprovalTypes.has(type) && approved && denied)
      errors.push(
        invalidField(`${path}.type`, type, 'Approved and Denied conditions are mutually exclusive'),
      );
    if (seen.has(type))
      errors.push({ type: FieldErrorType.Duplicate, field: `${path}.type`, badValue: type });
    seen.add(type);
  });
  return errors;
}

/** `validateCertificate`: PEM CERTIFICATE blocks only, each a parseable certificate. */
function certificateProblem(pem: string): string | undefined {
  const blocks = decodePemBlocks(pem);
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE')
      return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (block.headers) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(block.bytes);
    } catch (e) {
      return errorText(e);
    }
  }
  return undefined;
}

function decodeBase64(value: unknown): Buffer {
  return Buffer.from(typeof value === 'string' ? value : '', 'base64');
}

function validateStatus(obj: KubeObject, old: KubeObject | undefined): FieldError[] {
  const errors = validateConditions(obj);
  const certificate = statusOf(obj)['certificate'];
  if (typeof certificate === 'string' && certificate !== '') {
    const problem = certificateProblem(decodeBase64(certificate).toString('latin1'));
    if (problem !== undefined)
      errors.push(invalidField('status.certificate', '<certificate data>', problem));
  }
  if (old === undefined) return errors;
  const types = new Set(conditionsOf(obj).map((c) => c['type']));
  for (const c of conditionsOf(old))
    if (!types.has(c['type']))
      errors.push(
        forbiddenField(
          'status.conditions',
          `updates may not remove a condition of type ${JSON.stringify(String(c['type']))}`,
        ),
      );
  // Only /status can change the certificate (the other writes keep the stored one): set once.
  const before = statusOf(old)['certificate'];
  if (typeof before === 'string' && before !== '' && before !== certificate)
    errors.push(
      forbiddenField('status.certificate', 'updates may not modify existing certificate content'),
    );
  return errors;
}

const QualifiedSigner = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+\/.+$/;

async function validateSpec(obj: KubeObject): Promise<FieldError[]> {
  const spec = specOf(obj);
  const errors: FieldError[] = [];
  const request = decodeBase64(spec['request']);
  const checked = await checkCertificateRequest(request.toString('latin1'));
  if (!checked.ok)
    errors.push(invalidField('spec.request', new Uint8Array(request), checked.error));
  const usages = Array.isArray(spec['usages']) ? spec['usages'] : [];
  if (usages.length === 0) errors.push(requiredField('spec.usages', 'usages must be provided'));
  const seen = new Set<unknown>();
  usages.forEach((u, i) => {
    if (!(KeyUsages as readonly unknown[]).includes(u))
      errors.push(notSupportedField(`spec.usages[${i}]`, String(u), KeyUsages));
    else if (seen.has(u))
      errors.push({
        type: FieldErrorType.Duplicate,
        field: `spec.usages[${i}]`,
        badValue: String(u),
      });
    seen.add(u);
  });
  const signer = typeof spec['signerName'] === 'string' ? spec['signerName'] : '';
  if (signer === '') errors.push(requiredField('spec.signerName'));
  else if (!QualifiedSigner.test(signer))
    errors.push(
      invalidField(
        'spec.signerName',
        signer,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'",
      ),
    );
  const seconds = spec['expirationSeconds'];
  if (typeof seconds === 'number' && seconds < MinExpirationSeconds)
    errors.push(
      invalidField(
        'spec.expirationSeconds',
        seconds,
        'may not specify a duration less than 600 seconds (10 minutes)',
      ),
    );
  return errors;
}

/** Field errors of a CSR about to be stored (`old`: the stored one, for updates). */
export async function csrFieldErrors(
  obj: KubeObject,
  old: KubeObject | undefined,
): Promise<FieldError[]> {
  return [...(old === undefined ? await validateSpec(obj) : []), ...validateStatus(obj, old)];
}

/**
 * ObjectMeta validation every write passes (apimachinery's ValidateObjectMeta and
 * ValidateObjectMetaUpdate): a name that is a DNS subdomain (a DNS label for namespaces, a path
 * segment for CSRs and RBAC objects), valid
 * label keys and values, qualified annotation keys within the 256 KiB budget, an immutable uid,
 * and no new finalizers once deletion has started.
 */
import {
  FieldErrorType,
  forbiddenField,
  invalidField,
  requiredField,
  type FieldError,
} from '../../api/meta/v1/field-error.js';
import {
  dns1123SubdomainProblems,
  labelValueProblems,
  qualifiedNameProblems,
} from '../../api/meta/v1/label-selector-matching.js';
import { MaxAnnotationBytes } from '../request-limits.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { isJsonMap } from './json.js';

const DNS1123_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/** validation.IsDNS1123Label. */
function dns1123LabelProblems(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1123_LABEL_RE.test(value)) {
    errs.push(
      dns1123SubdomainProblems(value).length === 0 ? 'must not contain dots' : DNS1123_LABEL_MSG,
    );
  }
  return errs;
}

/**
 * `path.IsValidPathSegmentName`: all a CSR's name must be ("We don't care what you call your
 * certificate requests"), so the kubelet's `node-csr-<base64url>` names, upper case included, pass.
 */
function pathSegmentNameProblems(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  return ['/', '%'].filter((c) => value.includes(c)).map((c) => `may not contain '${c}'`);
}

function nameRule(rt: ResourceType): (name: string) => string[] {
  if (rt.group === '' && rt.kind === 'Namespace') return dns1123LabelProblems;
  // RBAC names are path segments too (ValidateRBACName): `system:discovery`
  if (rt.group === 'certificates.k8s.io' || rt.group === 'rbac.authorization.k8s.io')
    return pathSegmentNameProblems;
  return dns1123SubdomainProblems;
}

/** Field errors of a new object's metadata. */
export function validateObjectMeta(rt: ResourceType, obj: KubeObject): FieldError[] {
  const meta = obj.metadata;
  const errors: FieldError[] = [];
  const name = meta.name ?? '';
  if (name === '') {
    errors.push(requiredField('metadata.name', 'name or generateName is required'));
  } else {
    for (const msg of nameRule(rt)(name)) errors.push(invalidField('metadata.name', name, msg));
  }
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    for (const msg of qualifiedNameProblems(key))
      errors.push(invalidField('metadata.labels', key, msg));
    for (const msg of labelValueProblems(value))
      errors.push(invalidField('metadata.labels', value, msg));
  }
  errors.push(...validateAnnotations(meta.annotations));
  return errors;
}

function validateAnnotations(annotations: Record<string, string> | undefined): FieldError[] {
  if (!isJsonMap(annotations)) return [];
  const errors: FieldError[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(annotations)) {
    for (const msg of qualifiedNameProblems(key.toLowerCase())) {
      errors.push(invalidField('metadata.annotations', key, msg));
    }
    size += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (size > MaxAnnotationBytes) {
    errors.push({
      type: FieldErrorType.TooLong,
      field: 'metadata.annotations',
      detail: `must have at most ${String(MaxAnnotationBytes)} bytes`,
    });
  }
  return errors;
}

/** Field errors of an update's metadata against the stored object's. */
export function validateObjectMetaUpdate(next: KubeObject, old: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const oldFinalizers = new Set(old.metadata.finalizers ?? []);
  const added = (next.metadata.finalizers ?? []).filter((f) => !oldFinalizers.has(f));
  if (old.metadata.deletionTimestamp !== undefined && added.length > 0) {
    errors.push(
      forbiddenField(
        'metadata.finalizers',
        `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
      ),
    );
  }
  return errors;
}

/** `metadata.uid: Invalid value: "x": field is immutable` when a write names another uid. */
export function uidChangeError(sentUid: unknown, old: KubeObject): FieldError | undefined {
  if (typeof sentUid !== 'string' || sentUid === '' || sentUid === old.metadata.uid)
    return undefined;
  return invalidField('metadata.uid', sentUid, 'field is immutable');
}

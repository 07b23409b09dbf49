/**
 * Field selectors (`?fieldSelector=spec.nodeName=n1,status.phase!=Succeeded`): apimachinery's
 * fields.ParseSelector (`=`, `==`, `!=`, backslash escapes, its error texts) and each kind's
 * selectable fields with the conversion errors the real server answers 400 with: core kinds say
 * `field label not supported: <field>`, every other kind
 * `"<field>" is not a known field selector: only "metadata.name", "metadata.namespace"`.
 */
import { err, ok, type Result } from '../../lib/result.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { isJsonMap, readPath } from './json.js';

export interface FieldRequirement {
  readonly field: string;
  /** `=` and `==` both mean equality. */
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** Selectable fields of the kinds with their own field-label conversion (k8s.io/kubernetes). */
const CORE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Pod: [
    'metadata.name',
    'metadata.namespace',
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.podIPs',
    'status.nominatedNodeName',
  ],
  Node: ['metadata.name', 'spec.unschedulable'],
  Event: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
    'metadata.namespace',
    'metadata.name',
  ],
  Namespace: ['status.phase', 'metadata.name'],
  Secret: ['type', 'metadata.namespace', 'metadata.name'],
};

const DEFAULT_FIELDS = ['metadata.name', 'metadata.namespace'];

function conversionError(rt: ResourceType, field: string): string | undefined {
  const core = rt.group === '' ? CORE_FIELDS[rt.kind] : undefined;
  if (core !== undefined) {
    return core.includes(field) ? undefined : `field label not supported: ${field}`;
  }
  if (DEFAULT_FIELDS.includes(field)) return undefined;
  return `${JSON.stringify(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
}

/** Splits on commas not escaped by a backslash (fields.splitTerms). */
function splitTerms(input: string): string[] {
  const terms: string[] = [];
  let current = '';
  let escaped = false;
  for (const ch of input) {
    if (escaped) {
      current += ch;
      escaped = false;
    } else if (ch === '\\') {
      current += ch;
      escaped = true;
    } else if (ch === ',') {
      terms.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  terms.push(current);
  return terms;
}

/** The first operator in the term, trying `!=`, `==`, `=` at each position (fields.splitTerm). */
function splitTerm(term: string): [string, string, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/** fields.UnescapeValue. */
function unescapeValue(value: string): Result<string, string> {
  let out = '';
  let escaped = false;
  for (const ch of value) {
    if (escaped) {
      if (ch !== '\\' && ch !== ',' && ch !== '=') {
        return err(`invalid field selector: invalid escape sequence: \\${ch}`);
      }
      out += ch;
      escaped = false;
    } else if (ch === '\\') {
      escaped = true;
    } else if (ch === ',' || ch === '=') {
      return err(
        `invalid field selector: unescaped character in value: ${String(ch.codePointAt(0))}`,
      );
    } else {
      out += ch;
    }
  }
  return escaped ? err('invalid field selector: invalid escape sequence: \\') : ok(out);
}

/** Parses and checks a field selector for `rt`; the error is the 400 message. */
export function parseFieldSelector(
  rt: ResourceType,
  input: string,
): Result<readonly FieldRequirement[], string> {
  const reqs: FieldRequirement[] = [];
  for (const term of splitTerms(input).sort()) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (parts === undefined) return err(`invalid selector: '${input}'; can't understand '${term}'`);
    const [lhs, op, rhs] = parts;
    const value = unescapeValue(rhs);
    if (!value.ok) return value;
    // `spec.host` is the pre-1.0 name of spec.nodeName
    const field =
      rt.group === '' && rt.kind === 'Pod' && lhs === 'spec.host' ? 'spec.nodeName' : lhs;
    reqs.push({ field, operator: op === '!=' ? '!=' : '=', value: value.value });
  }
  for (const r of reqs) {
    const problem = conversionError(rt, r.field);
    if (problem !== undefined) return err(problem);
  }
  return ok(reqs);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The selectable field values of an object (fields.Set of the kind's GetAttrs). */
export function selectableFields(rt: ResourceType, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': obj.metadata.name ?? '',
    'metadata.namespace': rt.namespaced ? (obj.metadata.namespace ?? '') : '',
  };
  if (rt.group !== '') return fields;
  const at = (...path: string[]): string => text(readPath(obj, path));
  switch (rt.kind) {
    case 'Pod': {
      const ips = readPath(obj, ['status', 'podIPs']);
      return {
        ...fields,
        'spec.nodeName': at('spec', 'nodeName'),
        'spec.restartPolicy': at('spec', 'restartPolicy'),
        'spec.schedulerName': at('spec', 'schedulerName'),
        'spec.serviceAccountName': at('spec', 'serviceAccountName'),
        'spec.hostNetwork': String(readPath(obj, ['spec', 'hostNetwork']) === true),
        'status.phase': at('status', 'phase'),
        'status.podIP': at('status', 'podIP'),
        'status.podIPs': Array.isArray(ips)
          ? ips.map((ip: unknown) => (isJsonMap(ip) ? text(ip['ip']) : '')).join(',')
          : '',
        'status.nominatedNodeName': at('status', 'nominatedNodeName'),
      };
    }
    case 'Node':
      return {
        ...fields,
        'spec.unschedulable': String(readPath(obj, ['spec', 'unschedulable']) === true),
      };
    case 'Event':
      return { ...fields, ...eventFields(obj) };
    case 'Namespace':
      return { ...fields, 'status.phase': at('status', 'phase') };
    case 'Secret':
      return { ...fields, type: text(obj['type']) };
    default:
      return fields;
  }
}

function eventFields(obj: KubeObject): Record<string, string> {
  const ref = isJsonMap(obj['involvedObject']) ? obj['involvedObject'] : {};
  const source = isJsonMap(obj['source']) ? text(obj['source']['component']) : '';
  return {
    'involvedObject.kind': text(ref['kind']),
    'involvedObject.namespace': text(ref['namespace']),
    'involvedObject.name': text(ref['name']),
    'involvedObject.uid': text(ref['uid']),
    'involvedObject.apiVersion': text(ref['apiVersion']),
    'involvedObject.resourceVersion': text(ref['resourceVersion']),
    'involvedObject.fieldPath': text(ref['fieldPath']),
    reason: text(obj['reason']),
    reportingComponent: text(obj['reportingComponent']),
    source: source === '' ? text(obj['reportingComponent']) : source,
    type: text(obj['type']),
  };
}

export function matchesFieldRequirements(
  reqs: readonly FieldRequirement[],
  fields: Readonly<Record<string, string>>,
): boolean {
  return reqs.every((r) => {
    const value = fields[r.field] ?? '';
    return r.operator === '=' ? value === r.value : value !== r.value;
  });
}

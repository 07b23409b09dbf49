/**
 * Field selectors (`?fieldSelector=spec.nodeName=n1,status.phase!=Succeeded`): apimachinery's
 * fields.ParseSelector (`=`, `==`, `!=`, backslash escapes, its error texts) and each kind's
 * selectable fields (its descriptor's, kinds/) with the conversion errors the real server answers
 * 400 with: kinds with their own conversion (Pod, Node, Event, Namespace, Secret) say
 * `field label not supported: <field>`, every other kind
 * `"<field>" is not a known field selector: only "metadata.name", "metadata.namespace"`.
 */
import { err, ok, type Result } from '../../lib/result.js';
import type { FieldSelectors } from '../kinds/built-in-kind.js';
import { builtInKind } from '../kinds/index.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';

export interface FieldRequirement {
  readonly field: string;
  /** `=` and `==` both mean equality. */
  readonly operator: '=' | '!=';
  readonly value: string;
}

const DEFAULT_FIELDS = ['metadata.name', 'metadata.namespace'];

/** The kind's own field-label conversion, from its descriptor. */
function ownSelectors(rt: ResourceType): FieldSelectors | undefined {
  return rt.builtIn ? builtInKind(rt.group, rt.kind)?.fieldSelectors : undefined;
}

function conversionError(rt: ResourceType, field: string): string | undefined {
  const own = ownSelectors(rt);
  if (own !== undefined) {
    return own.fields.includes(field) ? undefined : `field label not supported: ${field}`;
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
    const field = ownSelectors(rt)?.aliases?.[lhs] ?? lhs;
    reqs.push({ field, operator: op === '!=' ? '!=' : '=', value: value.value });
  }
  for (const r of reqs) {
    const problem = conversionError(rt, r.field);
    if (problem !== undefined) return err(problem);
  }
  return ok(reqs);
}

/** The selectable field values of an object (fields.Set of the kind's GetAttrs). */
export function selectableFields(rt: ResourceType, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': obj.metadata.name ?? '',
    'metadata.namespace': rt.namespaced ? (obj.metadata.namespace ?? '') : '',
  };
  const own = ownSelectors(rt);
  return own === undefined ? fields : { ...fields, ...own.values(obj) };
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

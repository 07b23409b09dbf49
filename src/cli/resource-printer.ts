/**
 * kubectl's non-table printers for `mco get`: `-o json` (MarshalIndent by four spaces, keys
 * sorted), `-o yaml` (sigs.k8s.io/yaml, byte for byte through src/lib/go-yaml.ts), `-o name`
 * (`node/worker-0`, `machineconfigpool.machineconfiguration.openshift.io/worker`) and
 * `-o jsonpath=TEMPLATE`. Several objects are printed as kubectl prints a list: one
 * `{apiVersion: v1, kind: List, items, metadata: {resourceVersion: ""}}`; one object asked for
 * by name is printed alone.
 */
import type { ApiObject, ResourceRef } from '../ports/resource-client.js';
import { marshalGoJson } from '../lib/go-json.js';
import { marshalGoYaml, type JsonValue } from '../lib/go-yaml.js';
import { CliError } from '../shell/cli-io.js';
import {
  describeJsonPathTemplateError,
  executeJsonPathTemplate,
  parseJsonPathTemplate,
  type JsonPathTemplate,
} from './jsonpath-template.js';

export type TableFormat = { readonly kind: 'table' } | { readonly kind: 'wide' };

export type ObjectFormat =
  | { readonly kind: 'json' }
  | { readonly kind: 'yaml' }
  | { readonly kind: 'name' }
  | { readonly kind: 'jsonpath'; readonly template: JsonPathTemplate };

export type OutputFormat = TableFormat | ObjectFormat;

export const OutputFormats = ['wide', 'json', 'yaml', 'name', 'jsonpath=TEMPLATE'] as const;

/** `-o` as kubectl reads it; a template may be quoted (`jsonpath='{.items[*]}'`). */
export function parseOutputFormat(value: string | undefined): OutputFormat {
  if (value === undefined || value === '') return { kind: 'table' };
  if (value === 'wide') return { kind: 'wide' };
  if (value === 'json') return { kind: 'json' };
  if (value === 'yaml') return { kind: 'yaml' };
  if (value === 'name') return { kind: 'name' };
  const m = /^jsonpath(=(.*))?$/s.exec(value);
  if (m !== null) {
    const raw = m[2] ?? '';
    if (raw === '') throw new CliError('template format specified but no template given');
    const unquoted = /^(['"])(.*)\1$/s.exec(raw)?.[2] ?? raw;
    const parsed = parseJsonPathTemplate(unquoted);
    if (!parsed.ok) throw new CliError(describeJsonPathTemplateError(parsed.error));
    return { kind: 'jsonpath', template: parsed.value };
  }
  throw new CliError(
    `unable to match a printer suitable for the output format "${value}", allowed formats are: ${OutputFormats.join(',')}`,
  );
}

const apiVersionOf = (ref: ResourceRef): string =>
  ref.group === '' ? ref.version : `${ref.group}/${ref.version}`;

/** A list item as kubectl prints it: the server leaves `apiVersion` and `kind` off items. */
export function withTypeMeta<T extends ApiObject>(ref: ResourceRef, object: T): T {
  return { ...object, apiVersion: apiVersionOf(ref), kind: ref.kind };
}

/** `node/worker-0`; a kind outside the core group is qualified by its group, as kubectl does. */
function objectName(ref: ResourceRef, object: ApiObject): string {
  const kind = ref.kind.toLowerCase();
  const qualified = ref.group === '' ? kind : `${kind}.${ref.group}`;
  return `${qualified}/${object.metadata.name ?? ''}`;
}

function withoutManagedFields(document: object): unknown {
  const strip = (o: unknown): unknown => {
    if (typeof o !== 'object' || o === null || !('metadata' in o)) return o;
    const metadata = o.metadata;
    if (typeof metadata !== 'object' || metadata === null || !('managedFields' in metadata))
      return o;
    const rest: Record<string, unknown> = { ...metadata };
    delete rest['managedFields'];
    return { ...o, metadata: rest };
  };
  if ('items' in document && Array.isArray(document.items))
    return { ...document, items: document.items.map(strip) };
  return strip(document);
}

function listDocument(items: readonly ApiObject[]): Record<string, unknown> {
  return { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };
}

/**
 * The text `-o FORMAT` prints for `objects` (already with type meta), `single` when one object was
 * asked for by name. Table formats are the caller's.
 */
export function printObjects(
  ref: ResourceRef,
  objects: readonly ApiObject[],
  format: ObjectFormat,
  options: { readonly single: boolean; readonly showManagedFields: boolean },
): string {
  const [first] = objects;
  const document = options.single && first !== undefined ? first : listDocument(objects);
  // kubectl leaves managedFields out of JSON and YAML (not jsonpath) unless asked for them.
  const shown = (): unknown =>
    options.showManagedFields ? document : withoutManagedFields(document);
  switch (format.kind) {
    case 'json':
      return `${marshalGoJson(shown(), '    ')}\n`;
    case 'yaml':
      return marshalGoYaml(JSON.parse(JSON.stringify(shown())) as JsonValue);
    case 'name':
      return objects.map((o) => `${objectName(ref, o)}\n`).join('');
    case 'jsonpath':
      return executeJsonPathTemplate(format.template, document);
  }
}

/**
 * Table output for `kubectl get` (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`): picks a
 * kind's printer (hand-written for built-ins, its CRD printer columns otherwise), renders the rows,
 * and attaches `row.object` as `includeObject` asks (PartialObjectMetadata by default).
 *
 * CRD cells follow the apiextensions table convertor: the first JSONPath result of each column,
 * strings printed as jsonpath prints them, numbers/integers/booleans as JSON values, `date` as an
 * age, and null where nothing matched.
 */
import type { PrinterColumn } from '../../api/apiextensions/v1/custom-resource-definition.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import { goPrint } from './go-print.js';
import { ageOf } from './human-duration.js';
import { evaluateJsonPath, parseJsonPath, type JsonPath } from './jsonpath.js';
import { builtInPrinter, defaultPrinter } from './printers.js';
import {
  CreationTimestampDescription,
  NameColumn,
  type Printer,
  type Table,
  type TableRow,
} from './table-types.js';

export const IncludeObject = { None: 'None', Metadata: 'Metadata', Object: 'Object' } as const;
export type IncludeObject = (typeof IncludeObject)[keyof typeof IncludeObject];

export interface TableOptions {
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`, as negotiated. */
  readonly apiVersion: string;
  readonly includeObject: IncludeObject;
  readonly nowMs: number;
}

export interface TableListMeta {
  readonly resourceVersion?: string | undefined;
  readonly continue?: string | undefined;
  readonly remainingItemCount?: number | undefined;
}

/** The Age column a CRD without printer columns gets. */
const DefaultCrdColumns: readonly PrinterColumn[] = [
  {
    name: 'Age',
    type: 'date',
    jsonPath: '.metadata.creationTimestamp',
    description: CreationTimestampDescription,
  },
];

/** The printer `kubectl get` output of this kind is rendered with. */
export function printerFor(rt: ResourceType): Printer {
  if (rt.builtIn) {
    return (
      builtInPrinter(rt.group, rt.kind) ??
      (rt.printerColumns.length > 0 ? crdPrinter(rt.printerColumns) : defaultPrinter)
    );
  }
  return crdPrinter(rt.printerColumns.length > 0 ? rt.printerColumns : DefaultCrdColumns);
}

/** A printer evaluating CRD `additionalPrinterColumns`; unparsable paths give empty cells. */
function crdPrinter(columns: readonly PrinterColumn[]): Printer {
  const paths: (JsonPath | undefined)[] = columns.map((c) => {
    const parsed = parseJsonPath(c.jsonPath);
    return parsed.ok ? parsed.value : undefined;
  });
  return {
    columns: [
      NameColumn,
      ...columns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      })),
    ],
    row(object, nowMs) {
      const cells = columns.map((c, i) => {
        const path = paths[i];
        if (path === undefined) return null;
        const results = evaluateJsonPath(path, object);
        return results.length === 0 ? null : cellFor(c.type, results[0], nowMs);
      });
      return { cells: [object.metadata.name ?? '', ...cells] };
    },
  };
}

/** cellForJSONValue, plus the jsonpath text of `string` columns. */
export function cellFor(type: PrinterColumn['type'], value: unknown, nowMs: number): unknown {
  if (type === 'string') return goPrint(value);
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? ageOf(value, nowMs) : null;
  }
}

/** A Table of `objects` (one row each), with the list metadata given. */
export function buildTable(
  printer: Printer,
  objects: readonly KubeObject[],
  listMeta: TableListMeta,
  options: TableOptions,
): Table {
  const metadata: Table['metadata'] = {};
  if (listMeta.resourceVersion !== undefined) metadata.resourceVersion = listMeta.resourceVersion;
  if (listMeta.continue !== undefined && listMeta.continue !== '')
    metadata.continue = listMeta.continue;
  if (listMeta.remainingItemCount !== undefined)
    metadata.remainingItemCount = listMeta.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion: options.apiVersion,
    metadata,
    columnDefinitions: [...printer.columns],
    rows: objects.map((o) => tableRow(printer, o, options)),
  };
}

function tableRow(printer: Printer, object: KubeObject, options: TableOptions): TableRow {
  const printed = printer.row(object, options.nowMs);
  const row: TableRow = { cells: printed.cells };
  if (printed.conditions !== undefined) row.conditions = printed.conditions;
  if (options.includeObject === IncludeObject.Object) row.object = object;
  else if (options.includeObject === IncludeObject.Metadata) {
    row.object = partialObjectMetadata(object, options.apiVersion);
  }
  return row;
}

/** `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{…}}`. */
export function partialObjectMetadata(
  object: KubeObject,
  apiVersion: string,
): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: object.metadata };
}

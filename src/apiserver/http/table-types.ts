/**
 * meta.k8s.io/v1 Table shapes (what `kubectl get` asks for with `as=Table`) and the printer
 * contract both CRD columns and the hand-written built-in printers implement.
 */
import type { KubeObject } from '../resource-store.js';

export interface TableColumnDefinition {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

/** A row condition; upstream marks finished pods `Completed` so clients may hide them. */
export interface TableRowCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

/** Turns objects of one kind into table rows; `nowMs` renders ages. */
export interface Printer {
  readonly columns: readonly TableColumnDefinition[];
  row(object: KubeObject, nowMs: number): Pick<TableRow, 'cells' | 'conditions'>;
}

/** ObjectMeta's `name` documentation, the description of every Name column. */
export const NameDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

/** ObjectMeta's `creationTimestamp` documentation, the description of built-in Age columns. */
export const CreationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** A column definition with upstream's defaults (`format` and `description` empty, priority 0). */
export function column(
  name: string,
  type: string,
  description = '',
  extra: { readonly priority?: number; readonly format?: string } = {},
): TableColumnDefinition {
  return { name, type, format: extra.format ?? '', description, priority: extra.priority ?? 0 };
}

export const NameColumn = column('Name', 'string', NameDescription, { format: 'name' });
export const AgeColumn = column('Age', 'string', CreationTimestampDescription);

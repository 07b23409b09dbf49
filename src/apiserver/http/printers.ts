/**
 * The printers of `kubectl get` for built-in kinds: each kind's hand-written one (its descriptor's,
 * matching Kubernetes' own `pkg/printers/internalversion`), and the default for kinds without one.
 * The server always prints the wide (`priority: 1`) cells; kubectl shows them only for `-o wide`.
 */
import { BuiltInKinds } from '../kinds/index.js';
import { name } from './printer-cells.js';
import { CreationTimestampDescription, NameColumn, column, type Printer } from './table-types.js';

/** What the API server prints for kinds without a printer: name and creation time (RFC 3339). */
export const defaultPrinter: Printer = {
  columns: [NameColumn, column('Created At', 'date', CreationTimestampDescription)],
  row(o) {
    return { cells: [name(o), o.metadata.creationTimestamp ?? null] };
  },
};

const BuiltIn = new Map<string, Printer>(
  BuiltInKinds.flatMap((k) =>
    k.printer === undefined ? [] : [[`${k.group}/${k.kind}`, k.printer]],
  ),
);

/** The hand-written printer of a built-in kind, if there is one. */
export function builtInPrinter(group: string, kind: string): Printer | undefined {
  return BuiltIn.get(`${group}/${kind}`);
}

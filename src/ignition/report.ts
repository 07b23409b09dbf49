/**
 * Validation reports, shaped like coreos/ignition's `config/validate/report`: every entry names the
 * JSON path of the problem, so an API server can answer 422 with field causes.
 */
export const EntryKind = { Error: 'error', Warning: 'warning', Info: 'info' } as const;
export type EntryKind = (typeof EntryKind)[keyof typeof EntryKind];

/** A path into the config: keys and list indexes, e.g. ['storage', 'files', 0, 'path']. */
export type ConfigPath = readonly (string | number)[];

export interface ReportEntry {
  readonly kind: EntryKind;
  readonly path: ConfigPath;
  readonly message: string;
}

export interface Report {
  readonly entries: readonly ReportEntry[];
}

export function isFatal(report: Report): boolean {
  return report.entries.some((e) => e.kind === EntryKind.Error);
}

/** `$.storage.files.0.path`, as Ignition prints a context path. */
export function formatPath(path: ConfigPath): string {
  return ['$', ...path.map(String)].join('.');
}

/** One line per entry, `error at $.a.b: message`, as Ignition's Report.String() without source. */
export function formatReport(report: Report): string {
  return report.entries.map((e) => `${e.kind} at ${formatPath(e.path)}: ${e.message}`).join('\n');
}

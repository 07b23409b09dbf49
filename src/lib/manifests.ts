/**
 * Manifest documents: the objects in a YAML or JSON file as `kubectl apply -f` reads them.
 * Multi-document YAML is split, `List` kinds are expanded into their items, empty documents are
 * skipped. YAML is read as YAML 1.1, as Kubernetes' Go YAML does, so `mode: 0644` means 420.
 */
import { parseAllDocuments } from 'yaml';
import { err, ok, type Result } from './result.js';

/** An object as read from a manifest: only apiVersion/kind/metadata are known to be there. */
export interface ManifestObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

export interface ManifestError {
  readonly kind: 'MalformedManifest';
  readonly source: string;
  readonly line: number;
  readonly reason: string;
}

/** kubectl's wording: `error parsing <file>: error converting YAML to JSON: yaml: line N: <why>`. */
export function describeManifestError(e: ManifestError): string {
  return `error parsing ${e.source}: error converting YAML to JSON: yaml: line ${e.line}: ${e.reason}`;
}

function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  const reason = line.replace(/ at line \d+, column \d+:?$/, '');
  return reason.charAt(0).toLowerCase() + reason.slice(1);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function expandList(doc: Record<string, unknown>, out: ManifestObject[]): void {
  const kind = doc['kind'];
  const items = doc['items'];
  if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(items)) {
    for (const item of items) if (isObject(item)) expandList(item, out);
    return;
  }
  out.push(doc);
}

/** Parses one file's text into its objects; any syntax error fails the whole file. */
export function parseManifests(
  text: string,
  source: string,
): Result<ManifestObject[], ManifestError> {
  const docs = parseAllDocuments(text, { version: '1.1', prettyErrors: true, uniqueKeys: true });
  const out: ManifestObject[] = [];
  for (const doc of docs) {
    const problem = doc.errors[0];
    if (problem !== undefined) {
      const line = problem.linePos?.[0].line ?? 0;
      return err({ kind: 'MalformedManifest', source, line, reason: firstLine(problem.message) });
    }
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) continue;
    if (!isObject(value)) {
      return err({
        kind: 'MalformedManifest',
        source,
        line: 1,
        reason: 'document is not an object',
      });
    }
    expandList(value, out);
  }
  return ok(out);
}

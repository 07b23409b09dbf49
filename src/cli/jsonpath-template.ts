/**
 * kubectl's `-o jsonpath=TEMPLATE` (client-go `util/jsonpath` with missing keys allowed): text with
 * `{…}` actions: a path (`{.items[*].metadata.name}`, its results separated by spaces), a quoted
 * string (`{"\n"}`), `{range PATH}…{end}` (the body once per result, with `@` being that
 * result), and `{@}`/`{$}`. Paths are evaluated by the JSONPath the API server uses for printer
 * columns (src/apiserver/http/jsonpath.ts), so both read a path the same way.
 *
 * Results print as kubectl prints them: strings as they are, maps and lists as compact JSON with
 * sorted keys, `<nil>` for null.
 */
import {
  describeJsonPathError,
  evaluateJsonPath,
  parseJsonPath,
  type JsonPath,
} from '../apiserver/http/jsonpath.js';
import { marshalGoJson } from '../lib/go-json.js';
import { err, ok, type Result } from '../lib/result.js';

type TemplateNode =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'path'; readonly path: JsonPath }
  | { readonly kind: 'range'; readonly path: JsonPath; readonly body: readonly TemplateNode[] };

export interface JsonPathTemplate {
  readonly source: string;
  readonly nodes: readonly TemplateNode[];
}

/** kubectl's wording: `error parsing jsonpath {.items[, unclosed action`. */
export interface JsonPathTemplateError {
  readonly template: string;
  readonly reason: string;
}

export function describeJsonPathTemplateError(e: JsonPathTemplateError): string {
  return `error parsing jsonpath ${e.template}, ${e.reason}`;
}

/** The index of the `}` closing the action that starts at `open`, quotes and brackets skipped. */
function closingBrace(text: string, open: number): number {
  let quote = '';
  let depth = 0;
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charAt(i);
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (c === '}' && depth <= 0) return i;
  }
  return -1;
}

function pathOf(action: string): JsonPath {
  // `@` is the current object, as `$` is the root; the path evaluator starts from the current one.
  const text = action.startsWith('@') ? action.slice(1) : action;
  const parsed = parseJsonPath(text);
  if (!parsed.ok) throw new Error(describeJsonPathError(parsed.error));
  return parsed.value;
}

function quoted(action: string): string {
  if (action.startsWith("'") && action.endsWith("'")) return action.slice(1, -1);
  return JSON.parse(action) as string;
}

export function parseJsonPathTemplate(
  source: string,
): Result<JsonPathTemplate, JsonPathTemplateError> {
  const root: TemplateNode[] = [];
  const stack: { nodes: TemplateNode[]; path: JsonPath | undefined }[] = [
    { nodes: root, path: undefined },
  ];
  const top = (): TemplateNode[] => stack[stack.length - 1]?.nodes ?? root;
  try {
    let at = 0;
    while (at < source.length) {
      const open = source.indexOf('{', at);
      if (open === -1) {
        top().push({ kind: 'text', text: source.slice(at) });
        break;
      }
      if (open > at) top().push({ kind: 'text', text: source.slice(at, open) });
      const close = closingBrace(source, open);
      if (close === -1) throw new Error('unclosed action');
      const action = source.slice(open + 1, close).trim();
      at = close + 1;
      if (action === 'end') {
        const done = stack.pop();
        const parent = stack[stack.length - 1];
        if (done?.path === undefined || parent === undefined)
          throw new Error('not in range, nothing to end');
        parent.nodes.push({ kind: 'range', path: done.path, body: done.nodes });
      } else if (/^range\s/.test(action)) {
        stack.push({ nodes: [], path: pathOf(action.slice('range'.length).trim()) });
      } else if (action.startsWith('"') || action.startsWith("'")) {
        top().push({ kind: 'text', text: quoted(action) });
      } else if (action === '') {
        throw new Error('empty action');
      } else {
        top().push({ kind: 'path', path: pathOf(action) });
      }
    }
    if (stack.length > 1) throw new Error('unclosed range');
    return ok({ source, nodes: root });
  } catch (e) {
    return err({ template: source, reason: (e as Error).message });
  }
}

/** One result as kubectl's PrintResults writes it. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return marshalGoJson(value);
}

function run(nodes: readonly TemplateNode[], current: unknown, root: unknown): string {
  let out = '';
  for (const node of nodes) {
    switch (node.kind) {
      case 'text':
        out += node.text;
        break;
      case 'path':
        out += evaluate(node.path, current, root).map(text).join(' ');
        break;
      case 'range':
        for (const item of evaluate(node.path, current, root)) out += run(node.body, item, root);
        break;
    }
  }
  return out;
}

/** `$…` starts at the root object; anything else at the current one (`@`, or the root outside a range). */
function evaluate(path: JsonPath, current: unknown, root: unknown): unknown[] {
  return evaluateJsonPath(path, path.source.trim().startsWith('$') ? root : current);
}

export function executeJsonPathTemplate(template: JsonPathTemplate, value: unknown): string {
  return run(template.nodes, value, value);
}

/**
 * The small template language of the MachineConfig templates (`templates/`): Go text/template's
 * `{{ .Path.To.Value }}` actions, with `{{-`/`-}}` whitespace trimming, one function, `default`:
 * `{{ .Images.infraImageKey | default "registry.k8s.io/pause:3.9" }}`, and `{{ if .Path }}` …
 * `{{ end }}` around text that only some clusters get (upstream's proxy.env: a line per proxy
 * setting that is set), with Go's truth: a missing value, `""`, `0` and `false` are false.
 *
 * No `else`, no loops: what varies by role or platform is expressed by which folder a file sits in
 * (see generate-template-configs.ts).
 */
import type { Result } from '../../lib/result.js';
import { err, ok } from '../../lib/result.js';

/** What a template can look up: nested records of scalars. */
export type TemplateValue = string | number | boolean | { readonly [key: string]: TemplateValue };
export type TemplateContext = { readonly [key: string]: TemplateValue };

export type RenderTemplateError =
  | { readonly kind: 'Unclosed'; readonly template: string; readonly offset: number }
  | { readonly kind: 'BadAction'; readonly template: string; readonly action: string }
  | { readonly kind: 'NoValue'; readonly template: string; readonly path: string }
  | { readonly kind: 'NotScalar'; readonly template: string; readonly path: string }
  | { readonly kind: 'UnexpectedEnd'; readonly template: string; readonly offset: number }
  | { readonly kind: 'UnclosedIf'; readonly template: string };

export function describeRenderTemplateError(e: RenderTemplateError): string {
  switch (e.kind) {
    case 'Unclosed':
      return `template ${e.template}: unclosed action at offset ${e.offset}`;
    case 'BadAction':
      return `template ${e.template}: cannot read action {{${e.action}}}: expected {{ .Path }} or {{ .Path | default "value" }}`;
    case 'NoValue':
      return `template ${e.template}: no value for ${e.path}`;
    case 'NotScalar':
      return `template ${e.template}: ${e.path} is not a string, number or boolean`;
    case 'UnexpectedEnd':
      return `template ${e.template}: unexpected {{end}} at offset ${e.offset}`;
    case 'UnclosedIf':
      return `template ${e.template}: unexpected EOF: an {{if}} has no {{end}}`;
  }
}

const Action =
  /^\s*(\.[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:\|\s*default\s+"((?:[^"\\]|\\.)*)"\s*)?$/;

const IfAction = /^\s*if\s+(\.[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*$/;
const EndAction = /^\s*end\s*$/;

/** Go's truth for the values templates see: present and not empty, zero or false. */
function truthy(value: TemplateValue | undefined): boolean {
  return value !== undefined && value !== '' && value !== 0 && value !== false;
}

function lookup(context: TemplateContext, path: string): TemplateValue | undefined {
  let value: TemplateValue | undefined = context;
  for (const key of path.slice(1).split('.')) {
    if (typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

function evaluate(
  template: string,
  action: string,
  context: TemplateContext,
): Result<string, RenderTemplateError> {
  const m = Action.exec(action);
  if (m === null) return err({ kind: 'BadAction', template, action });
  const path = m[1] ?? '';
  const fallback = m[2] === undefined ? undefined : (JSON.parse(`"${m[2]}"`) as string);
  const value = lookup(context, path);
  if (value === undefined || value === '') {
    if (fallback !== undefined) return ok(fallback);
    if (value === '') return ok('');
    return err({ kind: 'NoValue', template, path });
  }
  if (typeof value === 'object') return err({ kind: 'NotScalar', template, path });
  return ok(String(value));
}

/**
 * The text before the action at `open` and the action itself, with Go's trim markers applied:
 * "{{- " eats the whitespace before, " -}}" the whitespace after (`next` skips it).
 */
function trimmed(
  text: string,
  at: number,
  open: number,
  close: number,
): { literal: string; inner: string; next: number } {
  let literal = text.slice(at, open);
  let inner = text.slice(open + 2, close);
  let next = close + 2;
  if (/^-\s/.test(inner)) {
    literal = literal.replace(/\s+$/, '');
    inner = inner.slice(1);
  }
  if (/\s-$/.test(inner)) {
    inner = inner.slice(0, -1);
    while (next < text.length && /\s/.test(text.charAt(next))) next++;
  }
  return { literal, inner, next };
}

/** Renders `text` (named `template` in errors) against `context`. */
export function renderTemplate(
  template: string,
  text: string,
  context: TemplateContext,
): Result<string, RenderTemplateError> {
  let out = '';
  let at = 0;
  // one entry per open {{if}}: whether its text is kept
  const kept: boolean[] = [];
  const emitting = () => kept.every((k) => k);
  for (;;) {
    const open = text.indexOf('{{', at);
    if (open < 0) {
      if (kept.length > 0) return err({ kind: 'UnclosedIf', template });
      return ok(out + text.slice(at));
    }
    const close = text.indexOf('}}', open + 2);
    if (close < 0) return err({ kind: 'Unclosed', template, offset: open });
    const { literal, inner, next } = trimmed(text, at, open, close);
    if (emitting()) out += literal;
    at = next;
    const condition = IfAction.exec(inner);
    if (condition !== null) {
      kept.push(truthy(lookup(context, condition[1] ?? '')));
      continue;
    }
    if (EndAction.test(inner)) {
      if (kept.pop() === undefined) return err({ kind: 'UnexpectedEnd', template, offset: open });
      continue;
    }
    if (!emitting()) continue;
    const value = evaluate(template, inner, context);
    if (!value.ok) return value;
    out += value.value;
  }
}

/**
 * The small template language of the MachineConfig templates (`templates/`): Go text/template's
 * `{{ .Path.To.Value }}` actions, with `{{-`/`-}}` whitespace trimming and one function,
 * `default`: `{{ .Images.infraImageKey | default "registry.k8s.io/pause:3.9" }}`.
 *
 * Deliberately no conditionals or loops: templates are data, and what varies by role or platform
 * is expressed by which folder a file sits in (see generate-template-configs.ts).
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
  | { readonly kind: 'NotScalar'; readonly template: string; readonly path: string };

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
  }
}

const Action =
  /^\s*(\.[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:\|\s*default\s+"((?:[^"\\]|\\.)*)"\s*)?$/;

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

/** Renders `text` (named `template` in errors) against `context`. */
export function renderTemplate(
  template: string,
  text: string,
  context: TemplateContext,
): Result<string, RenderTemplateError> {
  let out = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf('{{', at);
    if (open < 0) return ok(out + text.slice(at));
    const close = text.indexOf('}}', open + 2);
    if (close < 0) return err({ kind: 'Unclosed', template, offset: open });
    let literal = text.slice(at, open);
    let inner = text.slice(open + 2, close);
    let next = close + 2;
    // Go's trim markers: "{{- " eats whitespace before, " -}}" whitespace after.
    if (/^-\s/.test(inner)) {
      literal = literal.replace(/\s+$/, '');
      inner = inner.slice(1);
    }
    if (/\s-$/.test(inner)) {
      inner = inner.slice(0, -1);
      while (next < text.length && /\s/.test(text.charAt(next))) next++;
    }
    const value = evaluate(template, inner, context);
    if (!value.ok) return value;
    out += literal + value.value;
    at = next;
  }
}

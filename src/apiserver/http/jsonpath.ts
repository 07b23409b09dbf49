/**
 * JSONPath as Kubernetes evaluates it for CRD printer columns (client-go `util/jsonpath` with
 * missing keys allowed): `.a.b`, escaped dots in keys (`.metadata.annotations.a\.b/c`), `[n]`,
 * `[-1]`, `[a:b:c]`, `[*]`, `.*`, `..key`, `['key']`, unions `[0,2]`, and filters
 * `[?(@.type=="Ready")]` with `== != < > <= >=` or bare existence `[?(@.x)]`.
 *
 * A path that cannot be parsed is an error value; a path that finds nothing yields no results, which
 * a printer column shows as an empty cell.
 */
import { err, ok, type Result } from '../../lib/result.js';

type Literal = string | number | boolean | null;

type Step =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'recursive' }
  | { readonly kind: 'index'; readonly indices: readonly number[] }
  | { readonly kind: 'keys'; readonly keys: readonly string[] }
  | {
      readonly kind: 'slice';
      readonly start: number | undefined;
      readonly end: number | undefined;
      readonly step: number | undefined;
    }
  | { readonly kind: 'filter'; readonly filter: Filter };

type Operand =
  | { readonly kind: 'path'; readonly steps: readonly Step[] }
  | { readonly kind: 'literal'; readonly value: Literal };

interface Filter {
  readonly left: Operand;
  readonly operator: 'exists' | '==' | '!=' | '<' | '>' | '<=' | '>=';
  readonly right: Operand | undefined;
}

/** A parsed path, ready to evaluate against any JSON value. */
export interface JsonPath {
  readonly source: string;
  readonly steps: readonly Step[];
}

const TERMINATORS = new Set([
  ' ',
  '.',
  ',',
  '[',
  ']',
  '$',
  '@',
  '{',
  '}',
  '(',
  ')',
  '=',
  '!',
  '<',
  '>',
]);

/** Why a path could not be parsed. */
export interface JsonPathError {
  readonly kind: 'InvalidJsonPath';
  readonly path: string;
  readonly reason: string;
}

export function describeJsonPathError(e: JsonPathError): string {
  return `unrecognized JSONPath ${JSON.stringify(e.path)}: ${e.reason}`;
}

/** Parses `.status.conditions[?(@.type=="Ready")].status`; `{…}` braces and a leading `$` are allowed. */
export function parseJsonPath(source: string): Result<JsonPath, JsonPathError> {
  let text = source.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  const parser = new Parser(text);
  try {
    if (parser.peek() === '$') parser.pos++;
    const steps = parser.parseSteps(false);
    if (!parser.done()) throw new Error(`unexpected ${JSON.stringify(parser.rest())}`);
    return ok({ source, steps });
  } catch (e) {
    return err({ kind: 'InvalidJsonPath', path: source, reason: (e as Error).message });
  }
}

/** Every value the path reaches in `root`, in document order; none when a key is missing. */
export function evaluateJsonPath(path: JsonPath, root: unknown): unknown[] {
  return evalSteps(path.steps, [root]);
}

class Parser {
  pos = 0;
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  done(): boolean {
    return this.pos >= this.text.length;
  }
  peek(offset = 0): string {
    return this.text.charAt(this.pos + offset);
  }
  rest(): string {
    return this.text.slice(this.pos);
  }
  expect(s: string): void {
    if (!this.text.startsWith(s, this.pos))
      throw new Error(`expected ${JSON.stringify(s)} at ${this.pos}`);
    this.pos += s.length;
  }
  skipSpaces(): void {
    while (this.peek() === ' ') this.pos++;
  }

  /** Steps until the end, or (inside a filter) until an operator or `)`. */
  parseSteps(inFilter: boolean): Step[] {
    const steps: Step[] = [];
    for (;;) {
      const c = this.peek();
      if (c === '.' && this.peek(1) === '.') {
        this.pos += 2;
        steps.push({ kind: 'recursive' });
        if (this.peek() !== '[') steps.push(this.parseField());
      } else if (c === '.') {
        this.pos++;
        if (this.peek() === '[' || this.done()) continue;
        steps.push(this.parseField());
      } else if (c === '[') {
        steps.push(this.parseBracket());
      } else if (inFilter || this.done()) {
        return steps;
      } else {
        throw new Error(`unexpected ${JSON.stringify(c)} at ${this.pos}`);
      }
    }
  }

  parseField(): Step {
    let name = '';
    while (!this.done() && !TERMINATORS.has(this.peek())) {
      if (this.peek() === '\\' && this.pos + 1 < this.text.length) this.pos++;
      name += this.peek();
      this.pos++;
    }
    if (name === '') throw new Error(`empty field name at ${this.pos}`);
    return name === '*' ? { kind: 'wildcard' } : { kind: 'field', name };
  }

  parseBracket(): Step {
    this.expect('[');
    this.skipSpaces();
    let step: Step;
    if (this.peek() === '?') {
      this.pos++;
      this.skipSpaces();
      this.expect('(');
      step = { kind: 'filter', filter: this.parseFilter() };
      this.skipSpaces();
      this.expect(')');
    } else if (this.peek() === '*') {
      this.pos++;
      step = { kind: 'wildcard' };
    } else if (this.peek() === "'" || this.peek() === '"') {
      const keys = [this.parseQuoted()];
      this.skipSpaces();
      while (this.peek() === ',') {
        this.pos++;
        this.skipSpaces();
        keys.push(this.parseQuoted());
        this.skipSpaces();
      }
      step = { kind: 'keys', keys };
    } else {
      step = this.parseIndexOrSlice();
    }
    this.skipSpaces();
    this.expect(']');
    return step;
  }

  parseIndexOrSlice(): Step {
    const body = /^[-0-9:, ]*/.exec(this.rest())?.[0] ?? '';
    this.pos += body.length;
    const compact = body.replace(/ /g, '');
    if (compact.includes(':')) {
      const parts = compact.split(':');
      if (parts.length > 3) throw new Error(`invalid slice ${JSON.stringify(compact)}`);
      const num = (s: string | undefined): number | undefined =>
        s === undefined || s === '' ? undefined : parseInteger(s);
      return { kind: 'slice', start: num(parts[0]), end: num(parts[1]), step: num(parts[2]) };
    }
    if (compact === '') throw new Error(`invalid array index at ${this.pos}`);
    return { kind: 'index', indices: compact.split(',').map(parseInteger) };
  }

  parseQuoted(): string {
    const quote = this.peek();
    this.pos++;
    let value = '';
    while (!this.done() && this.peek() !== quote) {
      if (this.peek() === '\\' && this.pos + 1 < this.text.length) this.pos++;
      value += this.peek();
      this.pos++;
    }
    this.expect(quote);
    return value;
  }

  parseFilter(): Filter {
    this.skipSpaces();
    const left = this.parseOperand();
    this.skipSpaces();
    const operator = /^(==|!=|<=|>=|<|>)/.exec(this.rest())?.[0] as Filter['operator'] | undefined;
    if (operator === undefined) return { left, operator: 'exists', right: undefined };
    this.pos += operator.length;
    this.skipSpaces();
    return { left, operator, right: this.parseOperand() };
  }

  parseOperand(): Operand {
    const c = this.peek();
    if (c === '@') {
      this.pos++;
      return { kind: 'path', steps: this.parseSteps(true) };
    }
    if (c === "'" || c === '"') return { kind: 'literal', value: this.parseQuoted() };
    const word = /^[^\s)=!<>]+/.exec(this.rest())?.[0] ?? '';
    if (word === '') throw new Error(`expected an operand at ${this.pos}`);
    this.pos += word.length;
    if (word === 'true' || word === 'false') return { kind: 'literal', value: word === 'true' };
    if (word === 'nil' || word === 'null') return { kind: 'literal', value: null };
    const n = Number(word);
    if (Number.isNaN(n)) throw new Error(`unrecognized literal ${JSON.stringify(word)}`);
    return { kind: 'literal', value: n };
  }
}

function parseInteger(s: string): number {
  if (!/^-?\d+$/.test(s)) throw new Error(`invalid array index ${JSON.stringify(s)}`);
  return Number(s);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function evalSteps(steps: readonly Step[], input: unknown[]): unknown[] {
  let current = input;
  for (const step of steps) {
    current = current.flatMap((value) => evalStep(step, value));
  }
  return current;
}

function evalStep(step: Step, value: unknown): unknown[] {
  switch (step.kind) {
    case 'field':
      return isObject(value) && Object.hasOwn(value, step.name) ? [value[step.name]] : [];
    case 'keys':
      return isObject(value)
        ? step.keys.filter((k) => Object.hasOwn(value, k)).map((k) => value[k])
        : [];
    case 'wildcard':
      return children(value);
    case 'recursive':
      return descendants(value);
    case 'index':
      return Array.isArray(value) ? step.indices.flatMap((i) => indexAt(value, i)) : [];
    case 'slice':
      return Array.isArray(value) ? slice(value, step) : [];
    case 'filter':
      return Array.isArray(value) ? value.filter((item) => matches(step.filter, item)) : [];
  }
}

/** Map values in key order (Go sorts map keys), or array elements. */
function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (!isObject(value)) return [];
  return Object.keys(value)
    .sort()
    .map((k) => value[k]);
}

/** The value itself and everything below it, parents before children. */
function descendants(value: unknown): unknown[] {
  return [value, ...children(value).flatMap(descendants)];
}

function indexAt(list: readonly unknown[], i: number): unknown[] {
  const at = i < 0 ? list.length + i : i;
  return at >= 0 && at < list.length ? [list[at]] : [];
}

function slice(
  list: readonly unknown[],
  s: { start: number | undefined; end: number | undefined; step: number | undefined },
): unknown[] {
  const len = list.length;
  const clamp = (n: number): number => Math.min(Math.max(n < 0 ? len + n : n, 0), len);
  const start = clamp(s.start ?? 0);
  const end = clamp(s.end ?? len);
  const step = s.step ?? 1;
  if (step <= 0) return [];
  const out: unknown[] = [];
  for (let i = start; i < end; i += step) out.push(list[i]);
  return out;
}

function operandValues(operand: Operand, item: unknown): unknown[] {
  return operand.kind === 'literal' ? [operand.value] : evalSteps(operand.steps, [item]);
}

function matches(filter: Filter, item: unknown): boolean {
  const lefts = operandValues(filter.left, item);
  if (filter.operator === 'exists') return lefts.length > 0;
  if (filter.right === undefined || lefts.length !== 1) return false;
  const rights = operandValues(filter.right, item);
  if (rights.length !== 1) return false;
  return compare(filter.operator, lefts[0], rights[0]);
}

/** Comparison of like-typed scalars only; values of different types never match (Go errors). */
function compare(operator: Exclude<Filter['operator'], 'exists'>, a: unknown, b: unknown): boolean {
  const scalar = (v: unknown): boolean => v === null || typeof v !== 'object';
  if (typeof a !== typeof b || !scalar(a) || !scalar(b)) return false;
  if (operator === '==') return a === b;
  if (operator === '!=') return a !== b;
  if (!(typeof a === 'number' || typeof a === 'string')) return false;
  return ordered(operator, a, b as typeof a);
}

function ordered<T extends number | string>(
  operator: '<' | '>' | '<=' | '>=',
  a: T,
  b: T,
): boolean {
  switch (operator) {
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '<=':
      return a <= b;
    case '>=':
      return a >= b;
  }
}

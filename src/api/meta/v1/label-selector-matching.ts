/**
 * Kubernetes label selectors, with apimachinery's semantics and texts:
 *
 * - `labelSelectorToRequirements` / `matchesLabelSelector`: metav1.LabelSelectorAsSelector +
 *   Matches (matchLabels and matchExpressions In/NotIn/Exists/DoesNotExist, ANDed);
 * - `labelSelectorToString`: what Go prints for `LabelSelectorAsSelector(s).String()` (requirements
 *   sorted by key, values sorted, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`);
 * - `parseSelectorString`: labels.Parse, for `?labelSelector=` (=, ==, !=, in, notin, gt, lt,
 *   exists, !key), with errors worded as the API server words them.
 *
 * Nil versus empty: Go turns a nil selector into "Nothing" and an empty one into "Everything".
 * `matchesLabelSelector` follows that; callers with other rules (MCO pools treat an empty selector
 * as selecting nothing) check `isEmptySelector` first.
 */
import { aggregateFieldErrors, invalidField, type FieldError } from './field-error.js';
import { goQuote } from '../../../lib/go/quote.js';
import type { LabelSelector } from './label-selector.js';
import { err, ok, type Result } from '../../../lib/result.js';

/** selection.Operator: the operators of a parsed requirement. */
const SelectorOperator = {
  In: 'in',
  NotIn: 'notin',
  Equals: '=',
  DoubleEquals: '==',
  NotEquals: '!=',
  Exists: 'exists',
  DoesNotExist: '!',
  GreaterThan: 'gt',
  LessThan: 'lt',
} as const;
type SelectorOperator = (typeof SelectorOperator)[keyof typeof SelectorOperator];

/** One requirement; a selector is a list of them, ANDed, sorted by key. */
export interface Requirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
}

export type Labels = Readonly<Record<string, string>>;

export type LabelSelectorError =
  | { readonly kind: 'InvalidOperator'; readonly operator: string }
  | { readonly kind: 'InvalidRequirement'; readonly errors: readonly FieldError[] };

/** What a parse error expected, each worded as labels.Parse words it. */
type Expected =
  | 'identifier'
  | 'identifierAfterComma'
  | 'commaOrEnd'
  | 'requirementStart'
  | 'binaryOperator'
  | 'openParen'
  | 'commaCloseParenOrIdentifier'
  | 'commaOrCloseParen'
  | 'commaOrIdentifier';

export type SelectorParseError =
  | {
      readonly kind: 'UnexpectedToken';
      readonly found: string;
      readonly expected: Expected;
      /** Errors inside one requirement get the `unable to parse requirement: ` prefix. */
      readonly inRequirement: boolean;
    }
  | { readonly kind: 'InvalidRequirement'; readonly errors: readonly FieldError[] };

// ---------------------------------------------------------------------------------------------
// LabelSelector (the API type)

/** True for a non-nil selector with no requirements (Go's `selector.Empty()` after conversion). */
export function isEmptySelector(selector: LabelSelector | undefined): boolean {
  if (selector === undefined) return false;
  const labels = Object.keys(selector.matchLabels ?? {}).length;
  return labels + (selector.matchExpressions ?? []).length === 0;
}

const API_OPERATORS: Readonly<Record<string, SelectorOperator>> = {
  In: SelectorOperator.In,
  NotIn: SelectorOperator.NotIn,
  Exists: SelectorOperator.Exists,
  DoesNotExist: SelectorOperator.DoesNotExist,
};

/**
 * LabelSelectorAsSelector for a non-nil selector: matchLabels as `=`, expressions mapped, each
 * validated like labels.NewRequirement, the result sorted by key. Stops at the first invalid one.
 */
export function labelSelectorToRequirements(
  selector: LabelSelector,
): Result<readonly Requirement[], LabelSelectorError> {
  const out: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const r = newRequirement(key, SelectorOperator.Equals, [value]);
    if (!r.ok) return err({ kind: 'InvalidRequirement', errors: r.error });
    out.push(r.value);
  }
  for (const expr of selector.matchExpressions ?? []) {
    const op = Object.hasOwn(API_OPERATORS, expr.operator)
      ? API_OPERATORS[expr.operator]
      : undefined;
    if (op === undefined) return err({ kind: 'InvalidOperator', operator: expr.operator });
    const r = newRequirement(expr.key, op, [...(expr.values ?? [])]);
    if (!r.ok) return err({ kind: 'InvalidRequirement', errors: r.error });
    out.push(r.value);
  }
  return ok(sortByKey(out));
}

export function describeLabelSelectorError(e: LabelSelectorError): string {
  switch (e.kind) {
    case 'InvalidOperator':
      return `${goQuote(e.operator)} is not a valid label selector operator`;
    case 'InvalidRequirement':
      return aggregateFieldErrors(e.errors) ?? '';
  }
}

/** What is wrong with `selector`, prefixed with the field `path` it came from; undefined if nothing. */
export function labelSelectorFault(
  path: string,
  selector: LabelSelector | undefined,
): string | undefined {
  if (selector === undefined) return undefined;
  const r = labelSelectorToRequirements(selector);
  return r.ok ? undefined : `${path}: ${describeLabelSelectorError(r.error)}`;
}

/**
 * Kubernetes semantics: nil matches nothing, empty matches everything, an invalid selector (bad
 * operator or key) matches nothing. Missing labels count as an empty set.
 */
export function matchesLabelSelector(
  selector: LabelSelector | undefined,
  labels: Labels | undefined,
): boolean {
  if (selector === undefined) return false;
  let reqs = parsedSelectors.get(selector);
  if (reqs === undefined) {
    reqs = labelSelectorToRequirements(selector);
    parsedSelectors.set(selector, reqs);
  }
  return reqs.ok && matchesRequirements(reqs.value, labels);
}

// A pool's selector is matched against every node on each sync; objects from a cache are replaced,
// not changed, when the resource changes, so the parse is kept per selector object.
const parsedSelectors = new WeakMap<
  LabelSelector,
  Result<readonly Requirement[], LabelSelectorError>
>();

/** `LabelSelectorAsSelector(s).String()`; nil and empty print as `""`. */
export function labelSelectorToString(selector: LabelSelector | undefined): string {
  if (selector === undefined) return '';
  const reqs: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    reqs.push({ key, operator: SelectorOperator.Equals, values: [value] });
  }
  for (const expr of selector.matchExpressions ?? []) {
    const op = Object.hasOwn(API_OPERATORS, expr.operator)
      ? API_OPERATORS[expr.operator]
      : undefined;
    reqs.push({ key: expr.key, operator: op ?? SelectorOperator.In, values: expr.values ?? [] });
  }
  return requirementsToString(sortByKey(reqs));
}

// ---------------------------------------------------------------------------------------------
// Requirements

/** All requirements hold (an empty list matches everything). */
export function matchesRequirements(
  reqs: readonly Requirement[],
  labels: Labels | undefined,
): boolean {
  return reqs.every((r) => matchesRequirement(r, labels ?? {}));
}

function matchesRequirement(r: Requirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case SelectorOperator.In:
    case SelectorOperator.Equals:
    case SelectorOperator.DoubleEquals:
      return value !== undefined && r.values.includes(value);
    case SelectorOperator.NotIn:
    case SelectorOperator.NotEquals:
      return value === undefined || !r.values.includes(value);
    case SelectorOperator.Exists:
      return has;
    case SelectorOperator.DoesNotExist:
      return !has;
    case SelectorOperator.GreaterThan:
    case SelectorOperator.LessThan:
      return compareInts(r, value);
  }
}

function compareInts(r: Requirement, value: string | undefined): boolean {
  if (value === undefined || r.values.length !== 1) return false;
  const actual = parseInt64(value);
  const wanted = parseInt64(r.values[0] ?? '');
  if (actual === undefined || wanted === undefined) return false;
  return r.operator === SelectorOperator.GreaterThan ? actual > wanted : actual < wanted;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64). */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** Requirement.String() joined with `,` (internalSelector.String()). */
export function requirementsToString(reqs: readonly Requirement[]): string {
  return reqs.map(requirementToString).join(',');
}

function requirementToString(r: Requirement): string {
  const key = r.operator === SelectorOperator.DoesNotExist ? `!${r.key}` : r.key;
  const values = [...r.values].sort(compareStrings).join(',');
  switch (r.operator) {
    case SelectorOperator.Exists:
    case SelectorOperator.DoesNotExist:
      return key;
    case SelectorOperator.In:
      return `${key} in (${values})`;
    case SelectorOperator.NotIn:
      return `${key} notin (${values})`;
    case SelectorOperator.Equals:
      return `${key}=${values}`;
    case SelectorOperator.DoubleEquals:
      return `${key}==${values}`;
    case SelectorOperator.NotEquals:
      return `${key}!=${values}`;
    case SelectorOperator.GreaterThan:
      return `${key}>${values}`;
    case SelectorOperator.LessThan:
      return `${key}<${values}`;
  }
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortByKey(reqs: Requirement[]): Requirement[] {
  return reqs.sort((a, b) => compareStrings(a.key, b.key));
}

/** labels.NewRequirement's validation; the field paths are relative (`key`, `values[0][k]`). */
function newRequirement(
  key: string,
  operator: SelectorOperator,
  values: readonly string[],
): Result<Requirement, readonly FieldError[]> {
  const errors: FieldError[] = [];
  const keyError = validateLabelKey(key, 'key');
  if (keyError !== undefined) errors.push(keyError);
  errors.push(...valueCountErrors(operator, values));
  values.forEach((v, i) => {
    const problems = labelValueProblems(v);
    if (problems.length > 0)
      errors.push(invalidField(`values[${i}][${key}]`, v, problems.join('; ')));
  });
  return errors.length > 0 ? err(errors) : ok({ key, operator, values });
}

function valueCountErrors(operator: SelectorOperator, values: readonly string[]): FieldError[] {
  switch (operator) {
    case SelectorOperator.In:
    case SelectorOperator.NotIn:
      return values.length === 0
        ? [invalidField('values', values, "for 'in', 'notin' operators, values set can't be empty")]
        : [];
    case SelectorOperator.Equals:
    case SelectorOperator.DoubleEquals:
    case SelectorOperator.NotEquals:
      return values.length !== 1
        ? [invalidField('values', values, 'exact-match compatibility requires one single value')]
        : [];
    case SelectorOperator.Exists:
    case SelectorOperator.DoesNotExist:
      return values.length !== 0
        ? [invalidField('values', values, 'values set must be empty for exists and does not exist')]
        : [];
    case SelectorOperator.GreaterThan:
    case SelectorOperator.LessThan: {
      const out: FieldError[] = [];
      if (values.length !== 1) {
        out.push(
          invalidField('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"),
        );
      }
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          out.push(
            invalidField(
              `values[${i}]`,
              v,
              "for 'Gt', 'Lt' operators, the value must be an integer",
            ),
          );
        }
      });
      return out;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// apimachinery validation texts (k8s.io/apimachinery/pkg/util/validation)

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // Go appends "'x', " per example and " or " between them, hence the double spaces
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

const maxLenError = (n: number): string => `must be no more than ${n} characters`;

/** validation.IsQualifiedName. */
export function qualifiedNameProblems(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainProblems(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

/** validation.IsDNS1123Subdomain. */
export function dns1123SubdomainProblems(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

/** validation.IsValidLabelValue. */
export function labelValueProblems(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

function validateLabelKey(key: string, field: string): FieldError | undefined {
  const problems = qualifiedNameProblems(key);
  return problems.length > 0 ? invalidField(field, key, problems.join('; ')) : undefined;
}

// ---------------------------------------------------------------------------------------------
// labels.Parse

const Tok = {
  Error: 'Error',
  End: 'End',
  ClosedPar: 'ClosedPar',
  Comma: 'Comma',
  DoesNotExist: 'DoesNotExist',
  DoubleEquals: 'DoubleEquals',
  Equals: 'Equals',
  GreaterThan: 'GreaterThan',
  Identifier: 'Identifier',
  In: 'In',
  LessThan: 'LessThan',
  NotEquals: 'NotEquals',
  NotIn: 'NotIn',
  OpenPar: 'OpenPar',
} as const;
type Tok = (typeof Tok)[keyof typeof Tok];

const STRING_TO_TOKEN: Readonly<Record<string, Tok>> = {
  ')': Tok.ClosedPar,
  ',': Tok.Comma,
  '!': Tok.DoesNotExist,
  '==': Tok.DoubleEquals,
  '=': Tok.Equals,
  '>': Tok.GreaterThan,
  in: Tok.In,
  '<': Tok.LessThan,
  '!=': Tok.NotEquals,
  notin: Tok.NotIn,
  '(': Tok.OpenPar,
};

interface Item {
  readonly tok: Tok;
  readonly lit: string;
}

const isWhitespace = (ch: string): boolean =>
  ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch) && ch !== '';
const tokenOf = (s: string): Tok | undefined =>
  Object.hasOwn(STRING_TO_TOKEN, s) ? STRING_TO_TOKEN[s] : undefined;

/** The lexer of labels.Parse; a NUL character ends the input, as in Go. */
function lex(input: string): Item[] {
  let pos = 0;
  const read = (): string => {
    const ch = pos < input.length ? input.charAt(pos) : '';
    pos++;
    return ch === '\0' ? '' : ch;
  };
  const items: Item[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    pos--;
    let item: Item;
    if (ch === '') item = { tok: Tok.End, lit: '' };
    else if (isSpecial(ch)) item = scanSpecial(read, () => pos--);
    else item = scanWord(read, () => pos--);
    items.push(item);
    if (item.tok === Tok.End) return items;
  }
}

function scanWord(read: () => string, unread: () => void): Item {
  let word = '';
  for (;;) {
    const ch = read();
    if (ch === '') break;
    if (isSpecial(ch) || isWhitespace(ch)) {
      unread();
      break;
    }
    word += ch;
  }
  return { tok: tokenOf(word) ?? Tok.Identifier, lit: word };
}

function scanSpecial(read: () => string, unread: () => void): Item {
  let buffer = '';
  let last: Item | undefined;
  for (;;) {
    const ch = read();
    if (ch === '') break;
    if (!isSpecial(ch)) {
      unread();
      break;
    }
    buffer += ch;
    const tok = tokenOf(buffer);
    if (tok !== undefined) last = { tok, lit: buffer };
    else if (last !== undefined) {
      unread();
      break;
    }
  }
  return last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buffer}'` };
}

/** Internal: unwinds the recursive-descent parser; never escapes parseSelectorString. */
class ParseFailure extends Error {
  readonly error: SelectorParseError;
  constructor(error: SelectorParseError) {
    super(describeSelectorParseError(error));
    this.name = 'ParseFailure';
    this.error = error;
  }
}

class Parser {
  readonly #items: readonly Item[];
  #position = 0;

  constructor(items: readonly Item[]) {
    this.#items = items;
  }

  /** `inValues`: `in`/`notin` are plain identifiers there (ParserContext Values). */
  lookahead(inValues = true): Item {
    const item = this.#items[this.#position] ?? { tok: Tok.End, lit: '' };
    return inValues && (item.tok === Tok.In || item.tok === Tok.NotIn)
      ? { tok: Tok.Identifier, lit: item.lit }
      : item;
  }

  consume(inValues = true): Item {
    const item = this.lookahead(inValues);
    this.#position++;
    return item;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead();
      if (tok === Tok.End) return reqs;
      if (tok !== Tok.Identifier && tok !== Tok.DoesNotExist) {
        throw unexpected(lit, 'requirementStart', false);
      }
      reqs.push(this.parseRequirement());
      const next = this.consume();
      if (next.tok === Tok.End) return reqs;
      if (next.tok !== Tok.Comma) throw unexpected(next.lit, 'commaOrEnd', false);
      const after = this.lookahead();
      if (after.tok !== Tok.Identifier && after.tok !== Tok.DoesNotExist) {
        throw unexpected(after.lit, 'identifierAfterComma', false);
      }
    }
  }

  parseRequirement(): Requirement {
    const { key, exists } = this.parseKeyAndInferOperator();
    if (exists !== undefined) return checked(newRequirement(key, exists, []));
    const operator = this.parseOperator();
    const values =
      operator === SelectorOperator.In || operator === SelectorOperator.NotIn
        ? this.parseValues()
        : this.parseExactValue();
    return checked(newRequirement(key, operator, [...values].sort(compareStrings)));
  }

  parseKeyAndInferOperator(): { key: string; exists: SelectorOperator | undefined } {
    let item = this.consume();
    let exists: SelectorOperator | undefined;
    if (item.tok === Tok.DoesNotExist) {
      exists = SelectorOperator.DoesNotExist;
      item = this.consume();
    }
    if (item.tok !== Tok.Identifier) throw unexpected(item.lit, 'identifier', true);
    // labels.Parse validates with a nil field path, which prints as `<nil>`
    const keyError = validateLabelKey(item.lit, '<nil>');
    if (keyError !== undefined)
      throw new ParseFailure({ kind: 'InvalidRequirement', errors: [keyError] });
    const next = this.lookahead().tok;
    if ((next === Tok.End || next === Tok.Comma) && exists === undefined) {
      exists = SelectorOperator.Exists;
    }
    return { key: item.lit, exists };
  }

  parseOperator(): SelectorOperator {
    const { tok, lit } = this.consume(false);
    const op = BINARY_OPERATORS[tok];
    if (op === undefined) throw unexpected(lit, 'binaryOperator', true);
    return op;
  }

  parseValues(): Set<string> {
    const open = this.consume();
    if (open.tok !== Tok.OpenPar) throw unexpected(open.lit, 'openParen', true);
    const { tok, lit } = this.lookahead();
    if (tok === Tok.Identifier || tok === Tok.Comma) {
      const values = this.parseIdentifiersList();
      // parseIdentifiersList only returns in front of ')', so this consumes it
      this.consume();
      return values;
    }
    if (tok === Tok.ClosedPar) {
      this.consume();
      return new Set(['']);
    }
    throw unexpected(lit, 'commaCloseParenOrIdentifier', true);
  }

  parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume();
      if (tok === Tok.Identifier) {
        values.add(lit);
        const next = this.lookahead();
        if (next.tok === Tok.Comma) continue;
        if (next.tok === Tok.ClosedPar) return values;
        throw unexpected(next.lit, 'commaOrCloseParen', true);
      }
      if (tok !== Tok.Comma) throw unexpected(lit, 'commaOrIdentifier', true);
      if (values.size === 0) values.add('');
      const next = this.lookahead().tok;
      if (next === Tok.ClosedPar) {
        values.add('');
        return values;
      }
      if (next === Tok.Comma) {
        this.consume();
        values.add('');
      }
    }
  }

  parseExactValue(): Set<string> {
    const ahead = this.lookahead().tok;
    if (ahead === Tok.End || ahead === Tok.Comma) return new Set(['']);
    const { tok, lit } = this.consume();
    if (tok === Tok.Identifier) return new Set([lit]);
    throw unexpected(lit, 'identifier', true);
  }
}

const BINARY_OPERATORS: Partial<Record<Tok, SelectorOperator>> = {
  In: SelectorOperator.In,
  Equals: SelectorOperator.Equals,
  DoubleEquals: SelectorOperator.DoubleEquals,
  GreaterThan: SelectorOperator.GreaterThan,
  LessThan: SelectorOperator.LessThan,
  NotIn: SelectorOperator.NotIn,
  NotEquals: SelectorOperator.NotEquals,
};

function unexpected(found: string, expected: Expected, inRequirement: boolean): ParseFailure {
  return new ParseFailure({ kind: 'UnexpectedToken', found, expected, inRequirement });
}

function checked(r: Result<Requirement, readonly FieldError[]>): Requirement {
  if (!r.ok) throw new ParseFailure({ kind: 'InvalidRequirement', errors: r.error });
  return r.value;
}

/**
 * labels.Parse: the requirements of a selector string, sorted by key. `""` is the empty selector
 * (everything).
 */
export function parseSelectorString(
  input: string,
): Result<readonly Requirement[], SelectorParseError> {
  try {
    return ok(sortByKey(new Parser(lex(input)).parse()));
  } catch (e) {
    if (e instanceof ParseFailure) return err(e.error);
    throw e;
  }
}

const EXPECTED_TEXT: Readonly<Record<Expected, (found: string) => string>> = {
  identifier: (f) => `found '${f}', expected: identifier`,
  identifierAfterComma: (f) => `found '${f}', expected: identifier after ','`,
  commaOrEnd: (f) => `found '${f}', expected: ',' or 'end of string'`,
  requirementStart: (f) => `found '${f}', expected: !, identifier, or 'end of string'`,
  binaryOperator: (f) => `found '${f}', expected: in, notin, =, ==, !=, gt, lt`,
  openParen: (f) => `found '${f}' expected: '('`,
  commaCloseParenOrIdentifier: (f) => `found '${f}', expected: ',', ')' or identifier`,
  commaOrCloseParen: (f) => `found '${f}', expected: ',' or ')'`,
  commaOrIdentifier: (f) => `found '${f}', expected: ',', or identifier`,
};

/** The error text labels.Parse returns; the API server answers 400 BadRequest with it. */
export function describeSelectorParseError(e: SelectorParseError): string {
  switch (e.kind) {
    case 'UnexpectedToken': {
      const text = EXPECTED_TEXT[e.expected](e.found);
      return e.inRequirement ? `unable to parse requirement: ${text}` : text;
    }
    case 'InvalidRequirement':
      return `unable to parse requirement: ${aggregateFieldErrors(e.errors) ?? ''}`;
  }
}

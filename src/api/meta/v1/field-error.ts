/**
 * Field-level validation errors, shaped like apimachinery's `field.Error`: a type, a field path
 * (`spec.config.ignition.version`), the bad value and a detail. They become the `details.causes` of
 * a 422 Invalid Status, and their text follows upstream exactly (`spec.x: Invalid value: "y": why`).
 */
import { goQuote } from '../../../lib/go/quote.js';
import { goJson } from '../../../lib/go/json-string.js';

/** field.ErrorType; the value is also the StatusCause `reason`. */
export const FieldErrorType = {
  NotFound: 'FieldValueNotFound',
  Required: 'FieldValueRequired',
  Duplicate: 'FieldValueDuplicate',
  Invalid: 'FieldValueInvalid',
  NotSupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
  TooFew: 'FieldValueTooFew',
  Internal: 'InternalError',
  TypeInvalid: 'FieldValueTypeInvalid',
  TooShort: 'FieldValueTooShort',
} as const;
export type FieldErrorType = (typeof FieldErrorType)[keyof typeof FieldErrorType];

const TYPE_TEXT: Readonly<Record<FieldErrorType, string>> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTooFew: 'Too few',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueTooShort: 'Too short',
};

/** The types whose text never shows the bad value. */
const VALUE_HIDDEN = new Set<FieldErrorType>([
  FieldErrorType.Required,
  FieldErrorType.Forbidden,
  FieldErrorType.TooLong,
  FieldErrorType.TooShort,
  FieldErrorType.Internal,
]);

export type FieldValue = string | number | boolean | null | readonly unknown[] | object;

export interface FieldError {
  readonly type: FieldErrorType;
  /** Dotted path as field.Path prints it: `spec.files[0].path`, `metadata.labels[key]`. */
  readonly field: string;
  /** Omitted (undefined) prints only the type text, like upstream's omitValue. */
  readonly badValue?: FieldValue;
  readonly detail?: string;
}

/** field.Invalid(path, value, detail). */
export function invalidField(field: string, badValue: FieldValue, detail: string): FieldError {
  return { type: FieldErrorType.Invalid, field, badValue, detail };
}

/** field.Required(path, detail). */
export function requiredField(field: string, detail = ''): FieldError {
  return { type: FieldErrorType.Required, field, detail };
}

/** field.NotSupported(path, value, valid): detail `supported values: "a", "b"`. */
export function notSupportedField(
  field: string,
  badValue: FieldValue,
  valid: readonly string[],
): FieldError {
  const detail = valid.length > 0 ? `supported values: ${valid.map(goQuote).join(', ')}` : '';
  return { type: FieldErrorType.NotSupported, field, badValue, detail };
}

/** field.Forbidden(path, detail). */
export function forbiddenField(field: string, detail: string): FieldError {
  return { type: FieldErrorType.Forbidden, field, detail };
}

/** The message without the field: `Invalid value: "x": detail` (field.Error.ErrorBody). */
export function fieldErrorBody(e: FieldError): string {
  const text = TYPE_TEXT[e.type];
  let body: string;
  if (VALUE_HIDDEN.has(e.type) || e.badValue === undefined) body = text;
  else body = `${text}: ${formatBadValue(e.badValue)}`;
  return e.detail !== undefined && e.detail.length > 0 ? `${body}: ${e.detail}` : body;
}

/** `field: body`, as field.Error.Error(). */
function formatFieldError(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/**
 * ErrorList.ToAggregate().Error(): duplicates dropped, one message alone, several as `[a, b]`;
 * undefined for an empty list.
 */
export function aggregateFieldErrors(errors: readonly FieldError[]): string | undefined {
  const messages = [...new Set(errors.map(formatFieldError))];
  if (messages.length === 0) return undefined;
  if (messages.length === 1) return messages[0];
  return `[${messages.join(', ')}]`;
}

function formatBadValue(value: FieldValue): string {
  if (typeof value === 'string') return goQuote(value);
  // Go's %#v of a []byte, e.g. a CSR's spec.request
  if (value instanceof Uint8Array)
    return `[]byte{${[...value].map((b) => `0x${b.toString(16)}`).join(', ')}}`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return goJson(value);
}

/**
 * ConfigMap and Secret size validation (ValidateConfigMap, ValidateSecret): the values of a
 * ConfigMap's `data` and `binaryData` together, and of a Secret's `data` (after `stringData` is
 * merged in), may hold at most 1 MiB (`core.MaxSecretSize`). Binary values count decoded, text
 * values as UTF-8, keys not at all. The ConfigMap error is on the whole object, whose empty path
 * field.Path prints as `[]`.
 */
import { FieldErrorType, type FieldError } from '../../api/meta/v1/field-error.js';
import { MaxConfigDataBytes } from '../request-limits.js';
import type { KubeObject } from '../resource-store.js';
import { isJsonMap } from './json.js';

/** The byte length of every value of the map at `obj[field]`, text or base64. */
function valueBytes(obj: KubeObject, field: string, encoding: 'utf8' | 'base64'): number {
  const map = obj[field];
  if (!isJsonMap(map)) return 0;
  let total = 0;
  for (const value of Object.values(map)) {
    if (typeof value === 'string') total += Buffer.byteLength(value, encoding);
  }
  return total;
}

function tooLong(field: string): FieldError {
  return {
    type: FieldErrorType.TooLong,
    field,
    detail: `must have at most ${String(MaxConfigDataBytes)} bytes`,
  };
}

export function configMapErrors(obj: KubeObject): FieldError[] {
  const total = valueBytes(obj, 'data', 'utf8') + valueBytes(obj, 'binaryData', 'base64');
  return total > MaxConfigDataBytes ? [tooLong('[]')] : [];
}

export function secretErrors(obj: KubeObject): FieldError[] {
  return valueBytes(obj, 'data', 'base64') > MaxConfigDataBytes ? [tooLong('data')] : [];
}

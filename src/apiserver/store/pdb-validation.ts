/**
 * PodDisruptionBudget spec validation (ValidatePodDisruptionBudgetSpec): at most one of
 * minAvailable and maxUnavailable, each a non-negative integer or a percentage up to 100%.
 */
import { invalidField, type FieldError } from '../../api/meta/v1/field-error.js';
import type { KubeObject } from '../resource-store.js';
import { isJsonMap } from './json.js';

const PERCENT_RE = /^[0-9]+%$/;
const PERCENT_MSG =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

export function podDisruptionBudgetErrors(obj: KubeObject): FieldError[] {
  const spec = obj['spec'];
  if (!isJsonMap(spec)) return [];
  const errors: FieldError[] = [];
  if (spec['minAvailable'] !== undefined && spec['maxUnavailable'] !== undefined) {
    errors.push(invalidField('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const key of ['minAvailable', 'maxUnavailable'] as const) {
    errors.push(...intOrPercentErrors(spec[key], `spec.${key}`));
  }
  return errors;
}

function intOrPercentErrors(value: unknown, field: string): FieldError[] {
  if (typeof value === 'number') {
    return value < 0 ? [invalidField(field, value, 'must be greater than or equal to 0')] : [];
  }
  if (typeof value !== 'string') return [];
  if (!PERCENT_RE.test(value)) return [invalidField(field, value, PERCENT_MSG)];
  return Number.parseInt(value, 10) > 100
    ? [invalidField(field, value, 'must be no greater than 100%')]
    : [];
}

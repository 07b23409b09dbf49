/**
 * The filter a list or watch applies: its label selector (labels.Parse) and field selector, both
 * parsed up front so a malformed one is a 400 before anything is read.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import {
  describeSelectorParseError,
  matchesRequirements,
  parseSelectorString,
} from '../../api/meta/v1/label-selector-matching.js';
import type { KubeObject } from '../resource-store.js';
import type { ResourceType } from '../resource-type.js';
import {
  matchesFieldRequirements,
  parseFieldSelector,
  selectableFields,
} from './field-selectors.js';

export interface ObjectFilter {
  readonly matches: (obj: KubeObject) => boolean;
  /** True when both selectors are empty (everything matches). */
  readonly everything: boolean;
}

export function objectFilter(
  rt: ResourceType,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
): ObjectFilter {
  const labels = parseSelectorString(labelSelector ?? '');
  if (!labels.ok) throw StatusError.badRequest(describeSelectorParseError(labels.error));
  const fields = parseFieldSelector(rt, fieldSelector ?? '');
  if (!fields.ok) throw StatusError.badRequest(fields.error);
  const labelReqs = labels.value;
  const fieldReqs = fields.value;
  return {
    everything: labelReqs.length === 0 && fieldReqs.length === 0,
    matches: (obj) =>
      matchesRequirements(labelReqs, obj.metadata.labels) &&
      (fieldReqs.length === 0 || matchesFieldRequirements(fieldReqs, selectableFields(rt, obj))),
  };
}

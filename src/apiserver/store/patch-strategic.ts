/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) for built-in kinds, the subset
 * kubectl sends: maps merge as in a merge patch; lists with a merge key merge element by element
 * (`$patch: delete` removes one, `$patch: replace` replaces the list); primitive lists with a set
 * strategy (finalizers) take the union; `$setElementOrder/<list>` orders a merged list,
 * `$deleteFromPrimitiveList/<list>` removes values, `$retainKeys` drops the keys it does not name,
 * and `$patch: replace|delete` on a map replaces or removes it.
 */
import { StatusError } from '../../api/meta/v1/status-error.js';
import type { ResourceType } from '../resource-type.js';
import { cloneJson, goJsonKind, isJsonMap, type JsonMap } from './json.js';
import { jsonEqual } from '../../lib/json-equal.js';
import type { ListStrategy } from './list-strategy.js';
import { listStrategy } from './strategic-merge-keys.js';

const SET_ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';

export function applyStrategicMergePatch(
  rt: ResourceType,
  target: unknown,
  patch: unknown,
): unknown {
  if (!isJsonMap(patch)) {
    const kind = goJsonKind(patch);
    throw StatusError.badRequest(
      `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`,
    );
  }
  return mergeMap(rt, isJsonMap(target) ? target : {}, patch, []) ?? {};
}

/** The merged map, or undefined when the patch deletes it. */
function mergeMap(
  rt: ResourceType,
  original: JsonMap | undefined,
  patch: JsonMap,
  path: readonly string[],
): JsonMap | undefined {
  const directive = patch['$patch'];
  if (directive === 'delete') return undefined;
  if (directive === 'replace') return withoutDirectives(patch);
  const result: JsonMap = cloneJson(original ?? {});
  const orders: [string, unknown][] = [];
  const deletions: [string, unknown][] = [];
  for (const [key, value] of Object.entries(patch)) {
    // `__proto__` would replace the prototype instead of setting a field
    if (key === '$patch' || key === '$retainKeys' || key === '__proto__') continue;
    if (key.startsWith(SET_ELEMENT_ORDER))
      orders.push([key.slice(SET_ELEMENT_ORDER.length), value]);
    else if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      deletions.push([key.slice(DELETE_FROM_PRIMITIVE_LIST.length), value]);
    } else mergeField({ rt, result, key, value, path: [...path, key] });
  }
  for (const [field, values] of deletions) deleteFromPrimitiveList(result, field, values);
  for (const [field, order] of orders)
    setElementOrder({ rt, result, field, order, path: [...path, field] });
  const retain = patch['$retainKeys'];
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) {
      // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- $retainKeys clears the rest
      if (!retain.includes(key)) delete result[key];
    }
  }
  return result;
}

function mergeField({
  rt,
  result,
  key,
  value,
  path,
}: {
  readonly rt: ResourceType;
  readonly result: JsonMap;
  readonly key: string;
  readonly value: unknown;
  readonly path: readonly string[];
}): void {
  let merged: unknown;
  if (value === null) merged = undefined;
  else if (isJsonMap(value)) merged = mergeMap(rt, asMap(result[key]), value, path);
  else if (Array.isArray(value)) merged = mergeList(rt, result[key], value, path);
  else merged = value;
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- null/delete removes the field
  if (merged === undefined) delete result[key];
  else result[key] = merged;
}

function mergeList(
  rt: ResourceType,
  original: unknown,
  patch: readonly unknown[],
  path: readonly string[],
): unknown[] {
  const replace = patch.some((el) => isJsonMap(el) && el['$patch'] === 'replace');
  const elements = patch.filter((el) => !(isJsonMap(el) && el['$patch'] === 'replace'));
  const strategy = listStrategy(rt, path);
  if (replace || strategy === undefined || !Array.isArray(original)) {
    return elements
      .filter((el) => !(isJsonMap(el) && el['$patch'] === 'delete'))
      .map((el) => (isJsonMap(el) ? (mergeMap(rt, undefined, el, path) ?? {}) : cloneJson(el)));
  }
  return 'set' in strategy
    ? mergeSet(original, elements)
    : mergeByKey({ rt, original, patch: elements, mergeKey: strategy.mergeKey, path });
}

function mergeSet(original: readonly unknown[], patch: readonly unknown[]): unknown[] {
  const result = cloneJson([...original]);
  for (const value of patch) {
    if (!result.some((existing) => jsonEqual(existing, value))) result.push(cloneJson(value));
  }
  return result;
}

function mergeByKey({
  rt,
  original,
  patch,
  mergeKey,
  path,
}: {
  readonly rt: ResourceType;
  readonly original: readonly unknown[];
  readonly patch: readonly unknown[];
  readonly mergeKey: string;
  readonly path: readonly string[];
}): unknown[] {
  let result = cloneJson([...original]);
  for (const element of patch) {
    if (!isJsonMap(element)) continue;
    const key = element[mergeKey];
    const matches = (el: unknown): boolean => isJsonMap(el) && jsonEqual(el[mergeKey], key);
    if (element['$patch'] === 'delete') {
      result = result.filter((el) => !matches(el));
      continue;
    }
    const index = result.findIndex(matches);
    const merged = mergeMap(rt, index < 0 ? undefined : asMap(result[index]), element, path);
    if (index < 0) {
      if (merged !== undefined) result.push(merged);
    } else if (merged === undefined) {
      result.splice(index, 1);
    } else {
      result[index] = merged;
    }
  }
  return result;
}

function deleteFromPrimitiveList(result: JsonMap, field: string, values: unknown): void {
  const list = result[field];
  if (!Array.isArray(list) || !Array.isArray(values)) return;
  result[field] = list.filter((item) => !values.some((v) => jsonEqual(v, item)));
}

/**
 * Orders `result[field]` as `order` lists it (by merge key, or by value for primitive lists);
 * elements the order does not mention keep their relative place after the ordered ones.
 */
function setElementOrder({
  rt,
  result,
  field,
  order,
  path,
}: {
  readonly rt: ResourceType;
  readonly result: JsonMap;
  readonly field: string;
  readonly order: unknown;
  readonly path: readonly string[];
}): void {
  const list: unknown = result[field];
  if (!Array.isArray(list) || !Array.isArray(order)) return;
  const items: readonly unknown[] = list;
  const strategy: ListStrategy | undefined = listStrategy(rt, path);
  const identity = (el: unknown): unknown =>
    strategy !== undefined && 'mergeKey' in strategy && isJsonMap(el) ? el[strategy.mergeKey] : el;
  const rank = (el: unknown): number => {
    const i = order.findIndex((o) => jsonEqual(identity(o), identity(el)));
    return i < 0 ? order.length : i;
  };
  result[field] = items
    .map((el, i) => ({ el, i, r: rank(el) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map(({ el }) => el);
}

function asMap(value: unknown): JsonMap | undefined {
  return isJsonMap(value) ? value : undefined;
}

/** A `$patch: replace` map: the patch itself, its directives removed. */
function withoutDirectives(patch: JsonMap): JsonMap {
  const out: JsonMap = {};
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith('$')) out[key] = cloneJson(value);
  }
  return out;
}

/**
 * Reading the query parameters of resource requests into the store's option shapes: list and watch
 * selectors and paging, write options (dryRun, fieldManager, fieldValidation, force), DeleteOptions
 * given as parameters, and `includeObject` for Table output.
 */
import type { ListQuery, WriteOptions, UserInfo } from '../resource-store.js';
import { IncludeObject } from './table.js';

const Validations = new Set(['Strict', 'Warn', 'Ignore']);

function setIf<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K] | undefined,
): void {
  if (value !== undefined) target[key] = value;
}

const param = (q: URLSearchParams, name: string): string | undefined => q.get(name) ?? undefined;

/** A non-negative integer parameter; anything else counts as absent. */
export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || !/^\d+$/.test(v)) return undefined;
  return Number(v);
}

export function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v !== null && (v === '' || v === '1' || v.toLowerCase() === 'true');
}

export function listQuery(q: URLSearchParams): ListQuery {
  const out: { -readonly [K in keyof ListQuery]: ListQuery[K] } = {};
  setIf(out, 'labelSelector', param(q, 'labelSelector'));
  setIf(out, 'fieldSelector', param(q, 'fieldSelector'));
  setIf(out, 'limit', intParam(q, 'limit'));
  setIf(out, 'continue', param(q, 'continue'));
  setIf(out, 'resourceVersion', param(q, 'resourceVersion'));
  return out;
}

type MutableWriteOptions = { -readonly [K in keyof WriteOptions]: WriteOptions[K] };

/** dryRun, fieldManager and fieldValidation; `warnings` is the array the store appends to. */
export function writeOptions(
  q: URLSearchParams,
  user: UserInfo,
  warnings: string[],
  userAgent?: string | null,
): WriteOptions {
  const out: MutableWriteOptions = { user, dryRun: q.getAll('dryRun').includes('All'), warnings };
  setIf(out, 'fieldManager', param(q, 'fieldManager'));
  if (userAgent !== null && userAgent !== undefined) out.userAgent = userAgent;
  const validation = q.get('fieldValidation');
  if (validation !== null && Validations.has(validation)) {
    out.fieldValidation = validation as NonNullable<WriteOptions['fieldValidation']>;
  }
  return out;
}

export function includeObjectParam(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  return v === IncludeObject.None || v === IncludeObject.Object ? v : IncludeObject.Metadata;
}

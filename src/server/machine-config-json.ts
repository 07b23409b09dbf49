/**
 * A MachineConfig as upstream's server writes it into the files it appends (clarketm/json, Go
 * field order, map keys sorted, HTML-safe strings): compact for the encapsulated config,
 * `MarshalIndent(mc, "", "    ")` for `/etc/mcs-machine-config-content.json`.
 */
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { clarketmJsonString } from '../lib/go/clarketm-json-string.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** Keys in the order they are written. */
type Ordered = [string, Json][];

/** Sets `key` as an own property, even `__proto__`. */
function put(out: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A decoded JSON value as is (key order kept), `undefined` dropped like a missing field. */
function plain(v: unknown): Json {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (Array.isArray(v)) return v.map(plain);
  if (isRecord(v)) {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) put(out, k, plain(x));
    return out;
  }
  return null;
}

/** A Go map: keys sorted byte-wise. */
function sortedMap(v: unknown): Json {
  if (!isRecord(v)) return null;
  const out: Record<string, Json> = {};
  for (const k of Object.keys(v).sort()) put(out, k, plain(v[k]));
  return out;
}

const isEmpty = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  v === '' ||
  v === 0 ||
  v === false ||
  (Array.isArray(v) && v.length === 0) ||
  (isRecord(v) && Object.keys(v).length === 0);

/** Go struct fields: `[json name, omitempty, encode]`. */
type Field = readonly [string, boolean, (v: unknown) => Json];

function struct(fields: readonly Field[], v: unknown): Ordered {
  const src = isRecord(v) ? v : {};
  const out: Ordered = [];
  for (const [name, omitEmpty, encode] of fields) {
    const x = src[name];
    if (omitEmpty && isEmpty(x)) continue;
    out.push([name, encode(x)]);
  }
  return out;
}

const asString = (v: unknown): Json => (typeof v === 'string' ? v : '');
const asBool = (v: unknown): Json => v === true;
const asNumber = (v: unknown): Json => (typeof v === 'number' ? v : 0);
const asList =
  (each: (v: unknown) => Json) =>
  (v: unknown): Json =>
    Array.isArray(v) ? v.map(each) : null;
const asStruct =
  (fields: readonly Field[]) =>
  (v: unknown): Json =>
    Object.fromEntries(struct(fields, v));

const OwnerReferenceFields: readonly Field[] = [
  ['apiVersion', false, asString],
  ['kind', false, asString],
  ['name', false, asString],
  ['uid', false, asString],
  ['controller', true, asBool],
  ['blockOwnerDeletion', true, asBool],
];

const ManagedFieldsFields: readonly Field[] = [
  ['manager', true, asString],
  ['operation', true, asString],
  ['apiVersion', true, asString],
  ['time', true, asString],
  ['fieldsType', true, asString],
  ['fieldsV1', true, plain],
  ['subresource', true, asString],
];

const ObjectMetaFields: readonly Field[] = [
  ['name', true, asString],
  ['generateName', true, asString],
  ['namespace', true, asString],
  ['selfLink', true, asString],
  ['uid', true, asString],
  ['resourceVersion', true, asString],
  ['generation', true, asNumber],
  ['creationTimestamp', true, asString],
  ['deletionTimestamp', true, asString],
  ['deletionGracePeriodSeconds', true, asNumber],
  ['labels', true, sortedMap],
  ['annotations', true, sortedMap],
  ['ownerReferences', true, asList(asStruct(OwnerReferenceFields))],
  ['finalizers', true, asList(asString)],
  ['managedFields', true, asList(asStruct(ManagedFieldsFields))],
];

/** MachineConfigSpec has no omitempty: nil lists are `null`, the raw config `null` when unset. */
const SpecFields: readonly Field[] = [
  ['osImageURL', false, asString],
  ['baseOSExtensionsContainerImage', false, asString],
  ['config', false, plain],
  ['kernelArguments', false, asList(asString)],
  ['extensions', false, asList(asString)],
  ['fips', false, asBool],
  ['kernelType', false, asString],
];

const MachineConfigFields: readonly Field[] = [
  ['kind', true, asString],
  ['apiVersion', true, asString],
  ['metadata', false, asStruct(ObjectMetaFields)],
  ['spec', false, asStruct(SpecFields)],
];

function write(v: Json, indent: string, depth: number): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return clarketmJsonString(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const items: string[] = Array.isArray(v)
    ? v.map((x) => write(x, indent, depth + 1))
    : Object.entries(v).map(
        ([k, x]) =>
          `${clarketmJsonString(k)}:${indent === '' ? '' : ' '}${write(x, indent, depth + 1)}`,
      );
  const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) return open + close;
  if (indent === '') return `${open}${items.join(',')}${close}`;
  const inner = `\n${indent.repeat(depth + 1)}`;
  return `${open}${inner}${items.join(`,${inner}`)}\n${indent.repeat(depth)}${close}`;
}

/** `json.Marshal(mc)` (indent '') or `json.MarshalIndent(mc, "", indent)`. */
export function machineConfigJson(mc: MachineConfig, indent = ''): string {
  return write(Object.fromEntries(struct(MachineConfigFields, mc)), indent, 0);
}

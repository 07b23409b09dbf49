/**
 * How objects are stored: JSON without `metadata.resourceVersion`, which is stamped from the
 * storage modRevision on every read (so the stored bytes never go stale and a no-op write is
 * recognisable). Keys are written in Go's field order so clients print objects as upstream does.
 */
import type { KeyValue } from '../../ports/storage.js';
import type { KubeObject } from '../resource-store.js';
import { isJsonMap, type JsonMap } from './json.js';

/** metav1.ObjectMeta's JSON field order. */
const META_ORDER = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
] as const;

/** Metadata keys in Go's order, unknown ones after them. */
function orderMetadata(meta: JsonMap): JsonMap {
  const out: JsonMap = {};
  for (const key of META_ORDER) if (meta[key] !== undefined) out[key] = meta[key];
  for (const [key, value] of Object.entries(meta)) if (!(key in out)) out[key] = value;
  return out;
}

/** apiVersion, kind, metadata first; the rest in the order given. */
function orderObject(obj: KubeObject): KubeObject {
  const { apiVersion, kind, metadata, ...rest } = obj;
  return { apiVersion, kind, metadata: orderMetadata(metadata), ...rest };
}

/** The stored form: the object without its resourceVersion. */
export function encodeObject(obj: KubeObject): string {
  const meta: JsonMap = { ...(obj.metadata as JsonMap) };
  delete meta['resourceVersion'];
  return JSON.stringify(orderObject({ ...obj, metadata: meta }));
}

/** The served form of a stored value: resourceVersion = the key's modRevision. */
export function decodeObject(kv: KeyValue, revision = kv.modRevision): KubeObject {
  const parsed = JSON.parse(kv.value) as unknown;
  const obj = (isJsonMap(parsed) ? parsed : {}) as KubeObject;
  const meta: JsonMap = isJsonMap(obj.metadata) ? { ...obj.metadata } : {};
  meta['resourceVersion'] = String(revision);
  return { ...obj, metadata: orderMetadata(meta) };
}

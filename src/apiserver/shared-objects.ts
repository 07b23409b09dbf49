/**
 * Objects the store hands to many readers at once and keeps (the watch cache's): nobody may change
 * them, so each one's JSON is computed once, on first use, and reused by every list and watch that
 * serves it, as kube-apiserver's watch cache keeps one decoded object per stored version and
 * serializes it once per format. Any other object is serialized afresh each time.
 */
import type { KubeObject } from './resource-store.js';

const shared = new WeakSet<KubeObject>();
const jsonOf = new WeakMap<KubeObject, string>();

/** Marks `obj` as shared (never to be changed) and returns it. */
export function shareObject(obj: KubeObject): KubeObject {
  shared.add(obj);
  return obj;
}

/** `JSON.stringify(obj)`, computed once for a shared object. */
export function objectJson(obj: KubeObject): string {
  const known = jsonOf.get(obj);
  if (known !== undefined) return known;
  const text = JSON.stringify(obj);
  if (shared.has(obj)) jsonOf.set(obj, text);
  return text;
}

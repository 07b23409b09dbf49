/**
 * The storage key layout, as the real API server lays out etcd:
 * `/registry/<group|core>/<plural>/[<namespace>/]<name>`. A prefix ending in `/` lists one
 * resource (all namespaces) or one namespace of it without catching a longer namespace name.
 */
import type { ResourceType } from '../resource-type.js';

type KeyedType = Pick<ResourceType, 'group' | 'plural' | 'namespaced'>;

/** `/registry/<group|core>/<plural>/`: every object of the resource. */
export function resourcePrefix(rt: KeyedType): string {
  return `/registry/${rt.group === '' ? 'core' : rt.group}/${rt.plural}/`;
}

/** The prefix a list or watch reads: one namespace of a namespaced resource, or all of it. */
export function scopePrefix(rt: KeyedType, namespace: string | undefined): string {
  const base = resourcePrefix(rt);
  return rt.namespaced && namespace !== undefined && namespace !== ''
    ? `${base}${namespace}/`
    : base;
}

/** The key of one object. */
export function objectKey(rt: KeyedType, namespace: string | undefined, name: string): string {
  return rt.namespaced
    ? `${resourcePrefix(rt)}${namespace ?? ''}/${name}`
    : `${resourcePrefix(rt)}${name}`;
}

/**
 * Reads one object from the server, undefined when it does not exist. Writers read the few
 * objects they apply (the operator's ControllerConfig and pools, the MCS certificate Secrets) live,
 * as upstream's apply helpers do: a cache that has not yet seen the writer's own last write would
 * turn the next write into AlreadyExists or Conflict.
 */
import { isStatusError } from '../api/meta/v1/status-error.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../ports/resource-client.js';

export async function liveGet<T extends ApiObject>({
  client,
  ref,
  name,
  namespace,
  signal,
}: {
  readonly client: ResourceClient;
  readonly ref: ResourceRef;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly signal: AbortSignal;
}): Promise<T | undefined> {
  try {
    return await client.get<T>(ref, name, namespace, signal);
  } catch (e) {
    if (isStatusError(e, 'NotFound')) return undefined;
    throw e;
  }
}

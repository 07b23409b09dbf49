/**
 * MachineConfiguration/cluster by a direct GET (it holds the node disruption policies), with its
 * absence and a refusal told apart: a daemon or a dashboard whose identity may not read it plans
 * with the cluster defaults and says why.
 */
import { isStatusError } from '../api/meta/v1/status-error.js';
import type { MachineConfiguration } from '../api/operator/v1/machine-configuration.js';
import { Resources } from '../api/resource-refs.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { errorText } from '../lib/error-text.js';

export type MachineConfigurationRead =
  | { readonly kind: 'found'; readonly object: MachineConfiguration }
  | { readonly kind: 'absent' }
  /** This identity may not read it (a node identity on a strict server). */
  | { readonly kind: 'forbidden'; readonly message: string }
  /** Any other failure of the GET (the server unreachable, say): worth another try. */
  | { readonly kind: 'failed'; readonly message: string };

export async function readMachineConfiguration(
  client: ResourceClient,
  signal?: AbortSignal,
): Promise<MachineConfigurationRead> {
  try {
    const object = await client.get<MachineConfiguration>(
      Resources.machineConfiguration,
      'cluster',
      undefined,
      signal,
    );
    return { kind: 'found', object };
  } catch (e) {
    if (isStatusError(e, 'NotFound')) return { kind: 'absent' };
    if (isStatusError(e, 'Forbidden')) return { kind: 'forbidden', message: errorText(e) };
    if (signal?.aborted === true) throw e;
    return { kind: 'failed', message: errorText(e) };
  }
}

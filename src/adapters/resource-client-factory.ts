/**
 * The ResourceClient a component gets: the lean client (https-resource-client.ts) for every
 * kubeconfig it understands and for in-cluster credentials; @kubernetes/client-node
 * (kube-client.ts, loaded only then) for a kubeconfig that needs what only client-node does
 * (exec or auth-provider plugins, basic auth, impersonation, a proxy).
 */
import type { ResourceClient } from '../ports/resource-client.js';
import {
  HttpsResourceClient,
  UnsupportedKubeconfigError,
  credentialsFromKubeconfig,
  credentialsInCluster,
} from './https-resource-client.js';

export type ResourceClientSource =
  | { readonly kubeconfigPath: string }
  | {
      readonly inCluster: true;
      /** The process environment (KUBERNETES_SERVICE_HOST/PORT), from the entry point. */
      readonly env: Readonly<Record<string, string | undefined>>;
    };

export async function createResourceClient(source: ResourceClientSource): Promise<ResourceClient> {
  if ('inCluster' in source) return new HttpsResourceClient(credentialsInCluster(source.env));
  try {
    return new HttpsResourceClient(credentialsFromKubeconfig(source.kubeconfigPath));
  } catch (e) {
    if (!(e instanceof UnsupportedKubeconfigError)) throw e;
    const { createKubeClient } = await import('./kube-client.js');
    return createKubeClient({ kubeconfigPath: source.kubeconfigPath });
  }
}

/**
 * The client-node adapter runs the ResourceClient contract (resource-client.contract.ts).
 */
import { describeResourceClientContract } from './resource-client.contract.js';
import { createKubeClient } from './kube-client.js';

describeResourceClientContract('client-node', (kubeconfigPath) =>
  createKubeClient({ kubeconfigPath }),
);

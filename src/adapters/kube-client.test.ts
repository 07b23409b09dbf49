/**
 * The client-node adapter runs the ResourceClient contract (test/support/resource-client-contract.ts).
 */
import { describeResourceClientContract } from '../../test/support/resource-client-contract.js';
import { createKubeClient } from './kube-client.js';

describeResourceClientContract('client-node', (kubeconfigPath) =>
  createKubeClient({ kubeconfigPath }),
);

/**
 * The Machines of the cluster in a box: one per node the box creates, made (as the admin) before
 * the node exists, as machine-api makes a Machine before its instance boots. A Machine is how the
 * box records which nodes it expects: the node client CSR approver approves a CSR only for a node
 * name a Machine names as its `InternalDNS` address, and machine node link gives the Node the role
 * label the Machine carries in `spec.metadata.labels`. Also used by the tests that create nodes.
 */
import {
  MachineNamespace,
  MachineRoleLabel,
  type Machine,
} from '../api/machine/v1beta1/machine.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import type { ResourceClient } from '../ports/resource-client.js';

export interface ExpectedNode {
  readonly name: string;
  /** `master`, `worker`, …: the Node gets `node-role.kubernetes.io/<role>`. */
  readonly role: string;
  readonly zone?: string;
  /** The node's InternalIP (simulated nodes all live on 127.0.0.1). */
  readonly address?: string;
}

/** The Machine object for a node (its status is written separately, as a provider would). */
function expectedMachine(node: ExpectedNode): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name: node.name,
      namespace: MachineNamespace,
      labels: {
        [MachineRoleLabel]: node.role,
        'machine.openshift.io/cluster-api-machine-type': node.role,
        ...(node.zone === undefined ? {} : { 'machine.openshift.io/zone': node.zone }),
      },
    },
    spec: {
      metadata: { labels: { [`node-role.kubernetes.io/${node.role}`]: '' } },
      providerID: `mco-box:///${node.name}`,
    },
  };
}

/**
 * Creates the node's Machine with its addresses unless it exists (a resumed box keeps the ones it
 * made). Returns the Machine as stored.
 */
export async function ensureMachine(client: ResourceClient, node: ExpectedNode): Promise<Machine> {
  let machine: Machine;
  try {
    machine = await client.get<Machine>(Resources.machine, node.name, MachineNamespace);
  } catch (e) {
    if (!isStatusError(e, 'NotFound')) throw e;
    machine = await client.create<Machine>(Resources.machine, expectedMachine(node));
  }
  if ((machine.status?.addresses ?? []).length > 0) return machine;
  return client.updateStatus<Machine>(Resources.machine, {
    ...machine,
    status: {
      ...machine.status,
      phase: 'Provisioned',
      addresses: [
        { type: 'InternalIP', address: node.address ?? '127.0.0.1' },
        { type: 'InternalDNS', address: node.name },
        { type: 'Hostname', address: node.name },
      ],
    },
  });
}

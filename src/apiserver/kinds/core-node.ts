/**
 * core/v1 Node: cluster-scoped, with a status subresource; the printer of `kubectl get nodes`
 * (roles from the node-role labels, addresses and node info in the wide columns), the merge keys of
 * its conditions, addresses and podCIDRs, and the `spec.unschedulable` field selector.
 */
import { NodeSchema } from '../../api/core/v1/node.js';
import type { KubeObject } from '../resource-store.js';
import { at, compareStrings, list, record, str } from '../http/json-access.js';
import { age, name } from '../http/printer-cells.js';
import { AgeColumn, NameColumn, column, type Printer } from '../http/table-types.js';
import { readPath } from '../store/json.js';
import { asSet, byType } from '../store/list-strategy.js';
import type { BuiltInKind } from './built-in-kind.js';

const NodeAddressesDescription =
  "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/concepts/nodes/node/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).";

const RolePrefix = 'node-role.kubernetes.io/';

/** `node-role.kubernetes.io/<role>` label suffixes and `kubernetes.io/role` values, sorted. */
function nodeRoles(node: KubeObject): string[] {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith(RolePrefix) && key.length > RolePrefix.length)
      roles.add(key.slice(RolePrefix.length));
    else if (key === 'kubernetes.io/role' && value !== '') roles.add(value);
  }
  return [...roles].sort(compareStrings);
}

function nodeStatus(node: KubeObject): string {
  const ready = list(at(node, 'status', 'conditions')).findLast(
    (c) => str(at(c, 'type')) === 'Ready',
  );
  const status = [
    ready === undefined ? 'Unknown' : str(at(ready, 'status')) === 'True' ? 'Ready' : 'NotReady',
  ];
  if (at(node, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function nodeAddress(node: KubeObject, type: string): string {
  const found = list(at(node, 'status', 'addresses')).find((a) => str(at(a, 'type')) === type);
  return found === undefined ? '<none>' : str(at(found, 'address'));
}

const orUnknown = (s: string): string => (s === '' ? '<unknown>' : s);

const nodePrinter: Printer = {
  columns: [
    NameColumn,
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    AgeColumn,
    column('Version', 'string', 'Kubelet Version reported by the node.'),
    column('Internal-IP', 'string', NodeAddressesDescription, { priority: 1 }),
    column('External-IP', 'string', NodeAddressesDescription, { priority: 1 }),
    column(
      'OS-Image',
      'string',
      'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
      { priority: 1 },
    ),
    column(
      'Kernel-Version',
      'string',
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      { priority: 1 },
    ),
    column(
      'Container-Runtime',
      'string',
      'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      { priority: 1 },
    ),
  ],
  row(node, now) {
    const info = record(at(node, 'status', 'nodeInfo'));
    const roles = nodeRoles(node).join(',');
    return {
      cells: [
        name(node),
        nodeStatus(node),
        roles === '' ? '<none>' : roles,
        age(node, now),
        str(info['kubeletVersion']),
        nodeAddress(node, 'InternalIP'),
        nodeAddress(node, 'ExternalIP'),
        orUnknown(str(info['osImage'])),
        orUnknown(str(info['kernelVersion'])),
        orUnknown(str(info['containerRuntimeVersion'])),
      ],
    };
  },
};

export const CoreNode: BuiltInKind = {
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
  schema: NodeSchema,
  shortNames: ['no'],
  subresources: ['status'],
  printer: nodePrinter,
  mergeKeys: {
    'spec.podCIDRs': asSet,
    'status.conditions': byType,
    'status.addresses': byType,
  },
  fieldSelectors: {
    fields: ['metadata.name', 'spec.unschedulable'],
    values: (obj) => ({
      'spec.unschedulable': String(readPath(obj, ['spec', 'unschedulable']) === true),
    }),
  },
};

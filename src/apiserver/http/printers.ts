/**
 * Hand-written Table printers for the built-in kinds, matching the columns and cells of Kubernetes'
 * own printers (`pkg/printers/internalversion`): Node, Namespace, Event, Lease, ConfigMap, Secret,
 * PodDisruptionBudget, DaemonSet and CertificateSigningRequest here, Pod in pod-printer.ts. The server always prints the wide
 * (`priority: 1`) cells; kubectl shows them only for `-o wide`.
 */
import type { KubeObject } from '../resource-store.js';
import { ageOf, humanDuration } from './human-duration.js';
import {
  at,
  compareStrings,
  formatLabelSelector,
  formatLabels,
  list,
  num,
  record,
  str,
} from './json-access.js';
import { podPrinter } from './pod-printer.js';
import {
  AgeColumn,
  CreationTimestampDescription,
  NameColumn,
  NameDescription,
  column,
  type Printer,
} from './table-types.js';

const age = (o: KubeObject, now: number): string => ageOf(o.metadata.creationTimestamp, now);
const name = (o: KubeObject): string => o.metadata.name ?? '';

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

const namespacePrinter: Printer = {
  columns: [NameColumn, column('Status', 'string', 'The status of the namespace'), AgeColumn],
  row(ns, now) {
    // the API server always sets the phase; an object without one is still Active
    const phase = str(at(ns, 'status', 'phase'));
    return { cells: [name(ns), phase === '' ? 'Active' : phase, age(ns, now)] };
  },
};

const FieldPathDescription =
  'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.';

const firstNonEmpty = (a: string, b: string): string => (a !== '' ? a : b);

function eventSource(event: KubeObject): string {
  const component = firstNonEmpty(
    str(at(event, 'source', 'component')),
    str(event['reportingComponent']),
  );
  const instance = firstNonEmpty(str(at(event, 'source', 'host')), str(event['reportingInstance']));
  return instance === '' ? component : `${component}, ${instance}`;
}

const eventPrinter: Printer = {
  columns: [
    column(
      'Last Seen',
      'string',
      'The time at which the most recent occurrence of this event was recorded.',
    ),
    column(
      'Type',
      'string',
      'Type of this event (Normal, Warning), new types could be added in the future',
    ),
    column(
      'Reason',
      'string',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    column('Object', 'string', 'The object that this event is about.'),
    column('Subobject', 'string', FieldPathDescription, { priority: 1 }),
    column(
      'Source',
      'string',
      'The component reporting this event. Should be a short machine understandable string.',
      { priority: 1 },
    ),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column(
      'First Seen',
      'string',
      'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
      { priority: 1 },
    ),
    column('Count', 'string', 'The number of times this event has occurred.', { priority: 1 }),
    column('Name', 'string', NameDescription, { priority: 1, format: 'name' }),
  ],
  row(event, now) {
    const first =
      str(event['firstTimestamp']) !== ''
        ? ageOf(event['firstTimestamp'], now)
        : ageOf(event['eventTime'], now);
    let last = str(event['lastTimestamp']) !== '' ? ageOf(event['lastTimestamp'], now) : first;
    let count = num(event['count']);
    const series = event['series'];
    if (series !== undefined && series !== null) {
      last = ageOf(at(series, 'lastObservedTime'), now);
      count = num(at(series, 'count'));
    } else if (count === 0) {
      // singleton events of the events.k8s.io API carry no count
      count = 1;
    }
    const kind = str(at(event, 'involvedObject', 'kind')).toLowerCase();
    const objectName = str(at(event, 'involvedObject', 'name'));
    return {
      cells: [
        last,
        str(event['type']),
        str(event['reason']),
        objectName === '' ? kind : `${kind}/${objectName}`,
        str(at(event, 'involvedObject', 'fieldPath')),
        eventSource(event),
        str(event['message']).trim(),
        first,
        count,
        name(event),
      ],
    };
  },
};

const leasePrinter: Printer = {
  columns: [
    NameColumn,
    column(
      'Holder',
      'string',
      'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
    ),
    AgeColumn,
  ],
  row(lease, now) {
    return { cells: [name(lease), str(at(lease, 'spec', 'holderIdentity')), age(lease, now)] };
  },
};

const configMapPrinter: Printer = {
  columns: [
    NameColumn,
    column(
      'Data',
      'string',
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    ),
    AgeColumn,
  ],
  row(cm, now) {
    const size =
      Object.keys(record(cm['data'])).length + Object.keys(record(cm['binaryData'])).length;
    return { cells: [name(cm), size, age(cm, now)] };
  },
};

const secretPrinter: Printer = {
  columns: [
    NameColumn,
    column(
      'Type',
      'string',
      'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
    ),
    column(
      'Data',
      'string',
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    ),
    AgeColumn,
  ],
  row(secret, now) {
    return {
      cells: [
        name(secret),
        str(secret['type']),
        Object.keys(record(secret['data'])).length,
        age(secret, now),
      ],
    };
  },
};

/** intstr.IntOrString.String(), or `N/A` when unset. */
function intOrStringCell(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  return 'N/A';
}

const podDisruptionBudgetPrinter: Printer = {
  columns: [
    NameColumn,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column(
      'Allowed Disruptions',
      'integer',
      'Calculated number of pods that may be disrupted at this time.',
    ),
    AgeColumn,
  ],
  row(pdb, now) {
    return {
      cells: [
        name(pdb),
        intOrStringCell(at(pdb, 'spec', 'minAvailable')),
        intOrStringCell(at(pdb, 'spec', 'maxUnavailable')),
        num(at(pdb, 'status', 'disruptionsAllowed')),
        age(pdb, now),
      ],
    };
  },
};

const ContainersDescription = 'Names of each container in the template.';
const ImagesDescription = 'Images referenced by each container in the template.';

const daemonSetPrinter: Printer = {
  columns: [
    NameColumn,
    column(
      'Desired',
      'integer',
      'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
    ),
    column(
      'Current',
      'integer',
      'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
    ),
    column(
      'Ready',
      'integer',
      'numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
    ),
    column(
      'Up-to-date',
      'integer',
      'The total number of nodes that are running updated daemon pod',
    ),
    column(
      'Available',
      'integer',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
    ),
    column(
      'Node Selector',
      'string',
      "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
    ),
    AgeColumn,
    column('Containers', 'string', ContainersDescription, { priority: 1 }),
    column('Images', 'string', ImagesDescription, { priority: 1 }),
    column(
      'Selector',
      'string',
      "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
      { priority: 1 },
    ),
  ],
  row(ds, now) {
    const status = record(ds['status']);
    const containers = list(at(ds, 'spec', 'template', 'spec', 'containers'));
    return {
      cells: [
        name(ds),
        num(status['desiredNumberScheduled']),
        num(status['currentNumberScheduled']),
        num(status['numberReady']),
        num(status['updatedNumberScheduled']),
        num(status['numberAvailable']),
        formatLabels(at(ds, 'spec', 'template', 'spec', 'nodeSelector')),
        age(ds, now),
        containers.map((c) => str(at(c, 'name'))).join(','),
        containers.map((c) => str(at(c, 'image'))).join(','),
        formatLabelSelector(at(ds, 'spec', 'selector')),
      ],
    };
  },
};

/** `Pending`, `Approved`, `Denied`, then `,Failed` and `,Issued` (extractCSRStatus). */
function csrCondition(csr: KubeObject): string {
  const types = new Set(list(at(csr, 'status', 'conditions')).map((c) => str(at(c, 'type'))));
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (str(at(csr, 'status', 'certificate')) !== '') status += ',Issued';
  return status;
}

const certificateSigningRequestPrinter: Printer = {
  columns: [
    NameColumn,
    AgeColumn,
    column(
      'SignerName',
      'string',
      'signerName indicates the requested signer, and is a qualified name.',
    ),
    column(
      'Requestor',
      'string',
      'request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block. When serialized as JSON or YAML, the data is additionally base64-encoded.',
    ),
    column(
      'RequestedDuration',
      'string',
      'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.',
    ),
    column(
      'Condition',
      'string',
      'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".',
    ),
  ],
  row(csr, now) {
    const signer = str(at(csr, 'spec', 'signerName'));
    const seconds = at(csr, 'spec', 'expirationSeconds');
    return {
      cells: [
        name(csr),
        age(csr, now),
        signer === '' ? '<none>' : signer,
        str(at(csr, 'spec', 'username')),
        typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>',
        csrCondition(csr),
      ],
    };
  },
};

/** What the API server prints for kinds without a printer: name and creation time (RFC 3339). */
export const defaultPrinter: Printer = {
  columns: [NameColumn, column('Created At', 'date', CreationTimestampDescription)],
  row(o) {
    return { cells: [name(o), o.metadata.creationTimestamp ?? null] };
  },
};

const BuiltIn: Readonly<Record<string, Printer>> = {
  '/Node': nodePrinter,
  '/Pod': podPrinter,
  '/Namespace': namespacePrinter,
  '/Event': eventPrinter,
  '/ConfigMap': configMapPrinter,
  '/Secret': secretPrinter,
  'coordination.k8s.io/Lease': leasePrinter,
  'policy/PodDisruptionBudget': podDisruptionBudgetPrinter,
  'apps/DaemonSet': daemonSetPrinter,
  'certificates.k8s.io/CertificateSigningRequest': certificateSigningRequestPrinter,
};

/** The hand-written printer of a built-in kind, if there is one. */
export function builtInPrinter(group: string, kind: string): Printer | undefined {
  return BuiltIn[`${group}/${kind}`];
}

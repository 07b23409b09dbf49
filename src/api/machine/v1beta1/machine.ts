/**
 * machine.openshift.io/v1beta1 Machine, the subset this project reads and writes: a machine the
 * cluster expects to join. Its `status.addresses` (an `InternalDNS` entry naming the node) is what
 * the node client CSR approver matches a CSR against; `spec.metadata.labels` and `spec.taints` are
 * what machine-api's node link puts on the Node once it registers, recording the Node in
 * `status.nodeRef`. Other fields (providerSpec, lifecycle hooks, ...) are preserved as sent.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { CrdInfo } from '../../apiextensions/v1/custom-resource-definition.js';
import { TaintSchema } from '../../core/v1/node.js';
import { NodeAddressSchema } from '../../core/v1/node.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { ObjectReferenceSchema } from '../../meta/v1/object-reference.js';
import { StringMap } from '../../schema.js';

const MachineGroup = 'machine.openshift.io';
const MachineVersion = 'v1beta1';
/** Where OpenShift keeps its Machines. */
export const MachineNamespace = 'openshift-machine-api';
/** The Node annotation machine-api's node link sets: `<namespace>/<machine>`. */
export const MachineAnnotation = 'machine.openshift.io/machine';
/** The Machine label naming its role (`master`, `worker`), as the installer sets it. */
export const MachineRoleLabel = 'machine.openshift.io/cluster-api-machine-role';

const MachineSpecSchema = Type.Object(
  {
    metadata: Type.Optional(
      Type.Object(
        {
          labels: Type.Optional(StringMap()),
          annotations: Type.Optional(StringMap()),
        },
        { 'x-kubernetes-preserve-unknown-fields': true },
      ),
    ),
    taints: Type.Optional(Type.Array(TaintSchema)),
    providerID: Type.Optional(Type.String()),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

const MachineStatusSchema = Type.Object(
  {
    nodeRef: Type.Optional(ObjectReferenceSchema),
    addresses: Type.Optional(Type.Array(NodeAddressSchema)),
    phase: Type.Optional(Type.String()),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

export const MachineSchema = kindSchema(
  'Machine is the Schema for the machines API. Compatibility level 2: Stable within a major release for a minimum of 9 months or 3 minor releases (whichever is longer).',
  {
    spec: Type.Optional(MachineSpecSchema),
    status: Type.Optional(MachineStatusSchema),
  },
);
export type Machine = Static<typeof MachineSchema>;

const label = (key: string): string => `.metadata.labels['${key.replace(/\./g, '\\.')}']`;

/** The CRD openshift/api installs (names, scope, printer columns). */
export const MachineCrd: CrdInfo = {
  group: MachineGroup,
  version: MachineVersion,
  kind: 'Machine',
  listKind: 'MachineList',
  plural: 'machines',
  singular: 'machine',
  shortNames: [],
  scope: 'Namespaced',
  hasStatusSubresource: true,
  additionalPrinterColumns: [
    {
      name: 'Phase',
      type: 'string',
      jsonPath: '.status.phase',
      description: 'Phase of machine',
    },
    {
      name: 'Type',
      type: 'string',
      jsonPath: label('machine.openshift.io/instance-type'),
      description: 'Type of instance',
    },
    {
      name: 'Region',
      type: 'string',
      jsonPath: label('machine.openshift.io/region'),
      description: 'Region associated with machine',
    },
    {
      name: 'Zone',
      type: 'string',
      jsonPath: label('machine.openshift.io/zone'),
      description: 'Zone associated with machine',
    },
    {
      name: 'Age',
      type: 'date',
      jsonPath: '.metadata.creationTimestamp',
      description: 'Machine age',
    },
    {
      name: 'Node',
      type: 'string',
      jsonPath: '.status.nodeRef.name',
      description: 'Node associated with machine',
      priority: 1,
    },
    {
      name: 'ProviderID',
      type: 'string',
      jsonPath: '.spec.providerID',
      description: 'Provider ID of machine created in cloud provider',
      priority: 1,
    },
  ],
};

/** The name a Machine's `InternalDNS` addresses give, compared as the approver does. */
export function normalizeDnsName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** Whether the Machine has an `InternalDNS` address naming `nodeName`. */
export function machineNamesNode(machine: Machine, nodeName: string): boolean {
  const want = normalizeDnsName(nodeName);
  return (machine.status?.addresses ?? []).some(
    (a) => a.type === 'InternalDNS' && normalizeDnsName(a.address) === want,
  );
}

/**
 * The CustomResourceDefinitions this project installs: every machineconfiguration.openshift.io/v1
 * kind, operator.openshift.io MachineConfiguration, config.openshift.io ClusterOperator and
 * ClusterVersion, machine.openshift.io Machine (the machines a cluster expects to join), and the
 * cluster configuration kinds the MCO reads (cluster-config-kinds.ts). Each is built from the kind's
 * TypeBox schema (as a structural `openAPIV3Schema`)
 * and its CrdInfo (names, scope, status subresource, printer columns).
 */
import {
  ApiextensionsApiVersion,
  type CustomKind,
  type CustomResourceDefinition,
} from './apiextensions/v1/custom-resource-definition.js';
import { ClusterOperatorSchema } from './config/v1/cluster-operator.js';
import { ClusterVersionSchema } from './config/v1/cluster-version.js';
import { ClusterOperatorCrd, ClusterVersionCrd } from './config/v1/crd-info.js';
import { Group, Label } from './machineconfiguration/v1/constants.js';
import { ContainerRuntimeConfigSchema } from './machineconfiguration/v1/container-runtime-config.js';
import { ControllerConfigSchema } from './machineconfiguration/v1/controller-config.js';
import {
  ContainerRuntimeConfigCrd,
  ControllerConfigCrd,
  KubeletConfigCrd,
  MachineConfigCrd,
  MachineConfigNodeCrd,
  MachineConfigPoolCrd,
  MachineOSBuildCrd,
  MachineOSConfigCrd,
} from './machineconfiguration/v1/crd-info.js';
import { MachineOSBuildSchema } from './machineconfiguration/v1/machine-os-build.js';
import { MachineOSConfigSchema } from './machineconfiguration/v1/machine-os-config.js';
import { KubeletConfigSchema } from './machineconfiguration/v1/kubelet-config.js';
import { MachineConfigSchema } from './machineconfiguration/v1/machine-config.js';
import { MachineConfigNodeSchema } from './machineconfiguration/v1/machine-config-node.js';
import { MachineConfigPoolSchema } from './machineconfiguration/v1/machine-config-pool.js';
import {
  MachineConfigurationCrd,
  MachineConfigurationSchema,
} from './operator/v1/machine-configuration.js';
import { MachineCrd, MachineSchema } from './machine/v1beta1/machine.js';
import { crdOpenApiV3Schema } from './schema.js';
import { ClusterConfigKinds } from './cluster-config-kinds.js';

/** Every custom kind, in install order. */
export const CustomKinds: readonly CustomKind[] = [
  { info: MachineConfigCrd, schema: MachineConfigSchema },
  { info: MachineConfigPoolCrd, schema: MachineConfigPoolSchema },
  { info: ControllerConfigCrd, schema: ControllerConfigSchema },
  { info: KubeletConfigCrd, schema: KubeletConfigSchema },
  { info: ContainerRuntimeConfigCrd, schema: ContainerRuntimeConfigSchema },
  { info: MachineConfigNodeCrd, schema: MachineConfigNodeSchema },
  { info: MachineOSConfigCrd, schema: MachineOSConfigSchema },
  { info: MachineOSBuildCrd, schema: MachineOSBuildSchema },
  { info: MachineConfigurationCrd, schema: MachineConfigurationSchema },
  { info: ClusterOperatorCrd, schema: ClusterOperatorSchema },
  { info: ClusterVersionCrd, schema: ClusterVersionSchema },
  { info: MachineCrd, schema: MachineSchema },
  ...ClusterConfigKinds,
];

/** The apiextensions.k8s.io/v1 object for one kind. */
export function customResourceDefinition(kind: CustomKind): CustomResourceDefinition {
  const { info } = kind;
  return {
    apiVersion: ApiextensionsApiVersion,
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${info.plural}.${info.group}`,
      // upstream marks only the MCO's own CRDs as operator-managed
      ...(info.group === Group ? { labels: { [Label.operatorManaged]: '' } } : {}),
    },
    spec: {
      group: info.group,
      names: {
        kind: info.kind,
        listKind: info.listKind,
        plural: info.plural,
        singular: info.singular,
        ...(info.shortNames.length > 0 ? { shortNames: [...info.shortNames] } : {}),
      },
      scope: info.scope,
      versions: [
        {
          name: info.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: crdOpenApiV3Schema(kind.schema) },
          ...(info.hasStatusSubresource ? { subresources: { status: {} } } : {}),
          ...(info.additionalPrinterColumns.length > 0
            ? { additionalPrinterColumns: info.additionalPrinterColumns.map((c) => ({ ...c })) }
            : {}),
        },
      ],
    },
  };
}

/** The CRDs of every custom kind; fresh objects on each call. */
export function customResourceDefinitions(): CustomResourceDefinition[] {
  return CustomKinds.map(customResourceDefinition);
}

/**
 * CRD names, scope, subresources and printer columns of the machineconfiguration.openshift.io/v1
 * kinds, as upstream's CRD manifests (openshift/api `machineconfiguration/v1/zz_generated.crd-manifests`)
 * declare them. `oc get mc|mcp|mcn` output depends on these columns being exact.
 */
import {
  AgeColumn,
  type CrdInfo,
  type PrinterColumn,
} from '../../apiextensions/v1/custom-resource-definition.js';
import { Group, Version } from './constants.js';

const conditionStatus = (type: string): string => `.status.conditions[?(@.type=="${type}")].status`;

export const MachineConfigCrd: CrdInfo = {
  group: Group,
  version: Version,
  kind: 'MachineConfig',
  listKind: 'MachineConfigList',
  plural: 'machineconfigs',
  singular: 'machineconfig',
  shortNames: ['mc'],
  scope: 'Cluster',
  hasStatusSubresource: false,
  additionalPrinterColumns: [
    {
      name: 'GeneratedByController',
      type: 'string',
      jsonPath:
        '.metadata.annotations.machineconfiguration\\.openshift\\.io/generated-by-controller-version',
      description:
        'Version of the controller that generated the machineconfig. This will be empty if the machineconfig is not managed by a controller.',
    },
    {
      name: 'IgnitionVersion',
      type: 'string',
      jsonPath: '.spec.config.ignition.version',
      description: 'Version of the Ignition Config defined in the machineconfig.',
    },
    AgeColumn,
  ],
};

export const MachineConfigPoolCrd: CrdInfo = {
  group: Group,
  version: Version,
  kind: 'MachineConfigPool',
  listKind: 'MachineConfigPoolList',
  plural: 'machineconfigpools',
  singular: 'machineconfigpool',
  shortNames: ['mcp'],
  scope: 'Cluster',
  hasStatusSubresource: true,
  additionalPrinterColumns: [
    { name: 'Config', type: 'string', jsonPath: '.status.configuration.name' },
    {
      name: 'Updated',
      type: 'string',
      jsonPath: conditionStatus('Updated'),
      description: 'When all the machines in the pool are updated to the correct machine config.',
    },
    {
      name: 'Updating',
      type: 'string',
      jsonPath: conditionStatus('Updating'),
      description:
        'When at least one of machine is not either not updated or is in the process of updating to the desired machine config.',
    },
    {
      name: 'Degraded',
      type: 'string',
      jsonPath: conditionStatus('Degraded'),
      description:
        'When progress is blocked on updating one or more nodes or the pool configuration is failing.',
    },
    {
      name: 'MachineCount',
      type: 'number',
      jsonPath: '.status.machineCount',
      description: 'Total number of machines in the machine config pool',
    },
    {
      name: 'ReadyMachineCount',
      type: 'number',
      jsonPath: '.status.readyMachineCount',
      description: 'Total number of ready machines targeted by the pool',
    },
    {
      name: 'UpdatedMachineCount',
      type: 'number',
      jsonPath: '.status.updatedMachineCount',
      description:
        'Total number of machines targeted by the pool that have the CurrentMachineConfig as their config',
    },
    {
      name: 'DegradedMachineCount',
      type: 'number',
      jsonPath: '.status.degradedMachineCount',
      description: 'Total number of machines marked degraded (or unreconcilable)',
    },
    AgeColumn,
  ],
};

export const ControllerConfigCrd: CrdInfo = {
  group: Group,
  version: Version,
  kind: 'ControllerConfig',
  listKind: 'ControllerConfigList',
  plural: 'controllerconfigs',
  singular: 'controllerconfig',
  shortNames: [],
  scope: 'Cluster',
  hasStatusSubresource: true,
  additionalPrinterColumns: [],
};

export const KubeletConfigCrd: CrdInfo = {
  group: Group,
  version: Version,
  kind: 'KubeletConfig',
  listKind: 'KubeletConfigList',
  plural: 'kubeletconfigs',
  singular: 'kubeletconfig',
  shortNames: [],
  scope: 'Cluster',
  hasStatusSubresource: true,
  additionalPrinterColumns: [],
};

export const ContainerRuntimeConfigCrd: CrdInfo = {
  group: Group,
  version: Version,
  kind: 'ContainerRuntimeConfig',
  listKind: 'ContainerRuntimeConfigList',
  plural: 'containerruntimeconfigs',
  singular: 'containerruntimeconfig',
  shortNames: ['ctrcfg'],
  scope: 'Cluster',
  hasStatusSubresource: true,
  additionalPrinterColumns: [],
};

const wide = (name: string, type: string): PrinterColumn => ({
  name,
  type: 'string',
  jsonPath: conditionStatus(type),
  priority: 1,
});

export const MachineConfigNodeCrd: CrdInfo = {
  group: Group,
  version: Version,
  kind: 'MachineConfigNode',
  listKind: 'MachineConfigNodeList',
  plural: 'machineconfignodes',
  singular: 'machineconfignode',
  shortNames: [],
  scope: 'Cluster',
  hasStatusSubresource: true,
  additionalPrinterColumns: [
    { name: 'PoolName', type: 'string', jsonPath: '.spec.pool.name' },
    { name: 'DesiredConfig', type: 'string', jsonPath: '.spec.configVersion.desired' },
    { name: 'CurrentConfig', type: 'string', jsonPath: '.status.configVersion.current' },
    { name: 'Updated', type: 'string', jsonPath: conditionStatus('Updated') },
    AgeColumn,
    wide('UpdatePrepared', 'UpdatePrepared'),
    wide('UpdateExecuted', 'UpdateExecuted'),
    wide('UpdatePostActionComplete', 'UpdatePostActionComplete'),
    wide('UpdateComplete', 'UpdateComplete'),
    wide('Resumed', 'Resumed'),
    wide('UpdatedFilesAndOS', 'AppliedFilesAndOS'),
    wide('CordonedNode', 'Cordoned'),
    wide('DrainedNode', 'Drained'),
    wide('RebootedNode', 'RebootedNode'),
    wide('UncordonedNode', 'Uncordoned'),
  ],
};

export const MachineOSConfigCrd: CrdInfo = {
  group: Group,
  version: Version,
  kind: 'MachineOSConfig',
  listKind: 'MachineOSConfigList',
  plural: 'machineosconfigs',
  singular: 'machineosconfig',
  shortNames: [],
  scope: 'Cluster',
  hasStatusSubresource: true,
  additionalPrinterColumns: [],
};

/** `oc get machineosbuilds`: one column per phase condition, then Age. */
export const MachineOSBuildCrd: CrdInfo = {
  group: Group,
  version: Version,
  kind: 'MachineOSBuild',
  listKind: 'MachineOSBuildList',
  plural: 'machineosbuilds',
  singular: 'machineosbuild',
  shortNames: [],
  scope: 'Cluster',
  hasStatusSubresource: true,
  additionalPrinterColumns: [
    { name: 'Prepared', type: 'string', jsonPath: conditionStatus('Prepared') },
    { name: 'Building', type: 'string', jsonPath: conditionStatus('Building') },
    { name: 'Succeeded', type: 'string', jsonPath: conditionStatus('Succeeded') },
    { name: 'Interrupted', type: 'string', jsonPath: conditionStatus('Interrupted') },
    { name: 'Failed', type: 'string', jsonPath: conditionStatus('Failed') },
    AgeColumn,
  ],
};

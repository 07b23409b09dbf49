/**
 * operator.openshift.io/v1 MachineConfiguration (singleton `cluster`, docs/reference/api.md §2.8): the
 * operator's knobs the MCO consumes: node disruption policies (merged with defaults into
 * `status.nodeDisruptionPolicyStatus`, docs/reference/node-disruption.md §1–3) and the
 * irreconcilable-validation overrides (docs/reference/render.md §3.6).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Int32, Int64, Nullable, RawObject, StringEnum } from '../../schema.js';
import type { CrdInfo } from '../../apiextensions/v1/custom-resource-definition.js';
import { ConditionSchema } from '../../meta/v1/condition.js';
import { kindSchema } from '../../meta/v1/kind.js';

const OperatorGroup = 'operator.openshift.io';

/** The singleton's name. */
export const MachineConfigurationName = 'cluster';

const SPEC_ACTIONS = ['Reboot', 'Drain', 'Reload', 'Restart', 'DaemonReload', 'None'] as const;
const STATUS_ACTIONS = [...SPEC_ACTIONS, 'Special'] as const;

const ServiceName = (): ReturnType<typeof Type.String> =>
  Type.String({
    description: 'the full name of the service, ${NAME}${SERVICETYPE}, e.g. crio.service',
    maxLength: 255,
  });

const ServiceRefSchema = Type.Object({ serviceName: ServiceName() });

function actionSchema<const T extends readonly string[]>(types: T) {
  return Type.Object({
    type: StringEnum(types),
    reload: Type.Optional(ServiceRefSchema),
    restart: Type.Optional(ServiceRefSchema),
  });
}

const NodeDisruptionPolicySpecActionSchema = actionSchema(SPEC_ACTIONS);
const NodeDisruptionPolicyStatusActionSchema = actionSchema(STATUS_ACTIONS);

const specActions = Type.Array(NodeDisruptionPolicySpecActionSchema, {
  maxItems: 10,
  'x-kubernetes-list-type': 'atomic',
});
const statusActions = Type.Array(NodeDisruptionPolicyStatusActionSchema, {
  maxItems: 10,
  'x-kubernetes-list-type': 'atomic',
});

const NodeDisruptionPolicyConfigSchema = Type.Object({
  files: Type.Optional(
    Type.Array(Type.Object({ path: Type.String(), actions: specActions }), {
      maxItems: 50,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['path'],
    }),
  ),
  units: Type.Optional(
    Type.Array(Type.Object({ name: ServiceName(), actions: specActions }), {
      maxItems: 50,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    }),
  ),
  sshkey: Type.Optional(Type.Object({ actions: specActions })),
});

const NodeDisruptionPolicyClusterStatusSchema = Type.Object({
  files: Type.Optional(
    Type.Array(Type.Object({ path: Type.String(), actions: statusActions }), {
      maxItems: 100,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['path'],
    }),
  ),
  units: Type.Optional(
    Type.Array(Type.Object({ name: ServiceName(), actions: statusActions }), {
      maxItems: 100,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    }),
  ),
  sshkey: Type.Optional(Type.Object({ actions: statusActions })),
});
export type NodeDisruptionPolicyClusterStatus = Static<
  typeof NodeDisruptionPolicyClusterStatusSchema
>;

const IrreconcilableValidationOverridesSchema = Type.Object({
  storage: Type.Optional(
    Type.Array(StringEnum(['Disks', 'FileSystems', 'Raid']), { 'x-kubernetes-list-type': 'set' }),
  ),
});

const MachineConfigurationSpecSchema = Type.Object(
  {
    managementState: Type.Optional(Type.String({ pattern: '^(Managed|Unmanaged|Force|Removed)$' })),
    logLevel: Type.Optional(StringEnum(['', 'Normal', 'Debug', 'Trace', 'TraceAll'])),
    operatorLogLevel: Type.Optional(StringEnum(['', 'Normal', 'Debug', 'Trace', 'TraceAll'])),
    unsupportedConfigOverrides: Type.Optional(Nullable(RawObject())),
    observedConfig: Type.Optional(Nullable(RawObject())),
    forceRedeploymentReason: Type.Optional(Type.String()),
    failedRevisionLimit: Type.Optional(Int32()),
    succeededRevisionLimit: Type.Optional(Int32()),
    managedBootImages: Type.Optional(RawObject()),
    nodeDisruptionPolicy: Type.Optional(NodeDisruptionPolicyConfigSchema),
    irreconcilableValidationOverrides: Type.Optional(IrreconcilableValidationOverridesSchema),
    bootImageSkewEnforcement: Type.Optional(RawObject()),
  },
  {
    description: 'spec is the specification of the desired behavior of the Machine Config Operator',
  },
);

const MachineConfigurationStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(Int64()),
    conditions: Type.Optional(
      Type.Array(ConditionSchema, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    nodeDisruptionPolicyStatus: Type.Optional(
      Type.Object({ clusterPolicies: Type.Optional(NodeDisruptionPolicyClusterStatusSchema) }),
    ),
    managedBootImagesStatus: Type.Optional(RawObject()),
    bootImageSkewEnforcementStatus: Type.Optional(RawObject()),
  },
  { description: 'status is the most recently observed status of the Machine Config Operator' },
);
export type MachineConfigurationStatus = Static<typeof MachineConfigurationStatusSchema>;

export const MachineConfigurationSchema = kindSchema(
  'MachineConfiguration provides information to configure an operator to manage Machine Configuration.',
  {
    spec: MachineConfigurationSpecSchema,
    status: Type.Optional(MachineConfigurationStatusSchema),
  },
);
export type MachineConfiguration = Static<typeof MachineConfigurationSchema>;

export const MachineConfigurationCrd: CrdInfo = {
  group: OperatorGroup,
  version: 'v1',
  kind: 'MachineConfiguration',
  listKind: 'MachineConfigurationList',
  plural: 'machineconfigurations',
  singular: 'machineconfiguration',
  shortNames: [],
  scope: 'Cluster',
  hasStatusSubresource: true,
  additionalPrinterColumns: [],
};

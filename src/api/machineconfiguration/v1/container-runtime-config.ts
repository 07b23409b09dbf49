/**
 * ContainerRuntimeConfig (docs/reference/api.md §2.6, shortName `ctrcfg`): CRI-O and storage settings for
 * the pools its selector matches, rendered into `99-<pool>-generated-containerruntime[-N]`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Int64, IntOrString } from '../../schema.js';
import { McoConditionSchema } from '../../meta/v1/condition.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { labelSelectorSchema } from '../../meta/v1/label-selector.js';

const QuantityPattern =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

const StoreSchema = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 256 }),
});

const ContainerRuntimeConfigurationSchema = Type.Object(
  {
    pidsLimit: Type.Optional(
      Int64({
        description: 'pidsLimit specifies the maximum number of processes allowed in a container',
      }),
    ),
    logLevel: Type.Optional(
      Type.String({
        description:
          'logLevel specifies the verbosity of the logs based on the level it is set to.\nOptions are fatal, panic, error, warn, info, and debug.',
      }),
    ),
    logSizeMax: Type.Optional(
      IntOrString({
        description: 'logSizeMax specifies the Maximum size allowed for the container log file.',
        pattern: QuantityPattern,
      }),
    ),
    overlaySize: Type.Optional(
      IntOrString({
        description: 'overlaySize specifies the maximum size of a container image.',
        pattern: QuantityPattern,
      }),
    ),
    defaultRuntime: Type.Optional(
      Type.String({
        description:
          'defaultRuntime is the name of the OCI runtime to be used as the default (crun or runc).',
      }),
    ),
    additionalLayerStores: Type.Optional(
      Type.Array(StoreSchema, { minItems: 1, maxItems: 5, 'x-kubernetes-list-type': 'atomic' }),
    ),
    additionalImageStores: Type.Optional(
      Type.Array(StoreSchema, { minItems: 1, maxItems: 10, 'x-kubernetes-list-type': 'atomic' }),
    ),
    additionalArtifactStores: Type.Optional(
      Type.Array(StoreSchema, { minItems: 1, maxItems: 10, 'x-kubernetes-list-type': 'atomic' }),
    ),
  },
  { description: 'containerRuntimeConfig defines the tuneables of the container runtime.' },
);

const ContainerRuntimeConfigSpecSchema = Type.Object(
  {
    machineConfigPoolSelector: Type.Optional(
      labelSelectorSchema(
        'machineConfigPoolSelector selects which pools the ContainerRuntimeConfig shoud apply to.\nA nil selector will result in no pools being selected.',
      ),
    ),
    containerRuntimeConfig: ContainerRuntimeConfigurationSchema,
  },
  { description: 'spec contains the desired container runtime configuration.' },
);

const ContainerRuntimeConfigStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(Int64()),
    conditions: Type.Optional(
      Type.Array(McoConditionSchema, { 'x-kubernetes-list-type': 'atomic' }),
    ),
  },
  {
    description: 'status contains observed information about the container runtime configuration.',
  },
);

export const ContainerRuntimeConfigSchema = kindSchema(
  'ContainerRuntimeConfig describes a customized Container Runtime configuration.',
  {
    spec: ContainerRuntimeConfigSpecSchema,
    status: Type.Optional(ContainerRuntimeConfigStatusSchema),
  },
);
export type ContainerRuntimeConfig = Static<typeof ContainerRuntimeConfigSchema>;

/**
 * MachineConfigPool (docs/reference/api.md §2.3): selects MachineConfigs (rendered together into one
 * config) and nodes (rolled onto it, `maxUnavailable` at a time). Spec `configuration` is written by
 * the render controller; status by the node controller.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Int32, Int64, IntOrString, StringEnum } from '../../schema.js';
import { McoConditionSchema } from '../../meta/v1/condition.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { labelSelectorSchema } from '../../meta/v1/label-selector.js';
import {
  ObjectReferenceSchema,
  objectReferenceProperties,
} from '../../meta/v1/object-reference.js';

const Rfc1123Subdomain =
  '^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]{0,61}[a-zA-Z0-9])(\\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]{0,61}[a-zA-Z0-9]))*$';

/** The rendered MachineConfig a pool targets, plus the MachineConfigs it was rendered from. */
const MachineConfigPoolStatusConfigurationSchema = Type.Object(
  {
    ...objectReferenceProperties,
    source: Type.Optional(
      Type.Array(ObjectReferenceSchema, {
        description:
          'source is the list of MachineConfig objects that were used to generate the single MachineConfig object specified in `content`.',
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

const PinnedImageSetRefSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 253, pattern: Rfc1123Subdomain }),
});

const OSImageStreamReferenceSchema = Type.Object({
  name: Type.String({
    description: 'name is a required reference to an OSImageStream to be used for the pool.',
    minLength: 1,
    maxLength: 253,
  }),
});

const MachineConfigPoolSpecSchema = Type.Object(
  {
    machineConfigSelector: Type.Optional(
      labelSelectorSchema(
        'machineConfigSelector specifies a label selector for MachineConfigs.\nRefer https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/ on how label and selectors work.',
      ),
    ),
    nodeSelector: Type.Optional(
      labelSelectorSchema('nodeSelector specifies a label selector for Machines'),
    ),
    paused: Type.Optional(
      Type.Boolean({
        description:
          'paused specifies whether or not changes to this machine config pool should be stopped.\nThis includes generating new desiredMachineConfig and update of machines.',
      }),
    ),
    maxUnavailable: Type.Optional(
      IntOrString({
        description:
          'maxUnavailable defines either an integer number or percentage of nodes in the pool that can go Unavailable during an update. The default value is 1; 0 is treated as 1.',
      }),
    ),
    configuration: Type.Optional(
      Type.Object(MachineConfigPoolStatusConfigurationSchema.properties, {
        description: 'The targeted MachineConfig object for the machine config pool.',
        'x-kubernetes-map-type': 'atomic',
      }),
    ),
    pinnedImageSets: Type.Optional(
      Type.Array(PinnedImageSetRefSchema, {
        description:
          'pinnedImageSets specifies a sequence of PinnedImageSetRef objects for the pool.',
        maxItems: 100,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      }),
    ),
    osImageStream: Type.Optional(OSImageStreamReferenceSchema),
  },
  { description: 'spec contains the desired machine config pool configuration.' },
);

const CertExpirySchema = Type.Object({
  bundle: Type.String({
    description: 'bundle is the name of the bundle in which the subject certificate resides',
  }),
  subject: Type.String({ description: 'subject is the subject of the certificate' }),
  expiry: Type.Optional(
    DateTime({
      description: 'expiry is the date after which the certificate will no longer be valid',
    }),
  ),
});

const NonNegativeInt64 = (): ReturnType<typeof Int64> => Int64({ minimum: 0 });

const PoolSynchronizerStatusSchema = Type.Object({
  poolSynchronizerType: StringEnum(['PinnedImageSets'], { maxLength: 256 }),
  machineCount: NonNegativeInt64(),
  updatedMachineCount: NonNegativeInt64(),
  readyMachineCount: NonNegativeInt64(),
  availableMachineCount: NonNegativeInt64(),
  unavailableMachineCount: NonNegativeInt64(),
  observedGeneration: Type.Optional(NonNegativeInt64()),
});

const MachineConfigPoolStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(
      Int64({
        description: 'observedGeneration represents the generation observed by the controller.',
      }),
    ),
    configuration: Type.Optional(
      Type.Object(MachineConfigPoolStatusConfigurationSchema.properties, {
        description:
          'configuration represents the current MachineConfig object for the machine config pool.',
        'x-kubernetes-map-type': 'atomic',
      }),
    ),
    machineCount: Type.Optional(
      Int32({
        description:
          'machineCount represents the total number of machines in the machine config pool.',
      }),
    ),
    updatedMachineCount: Type.Optional(
      Int32({
        description:
          'updatedMachineCount represents the total number of machines targeted by the pool that have the CurrentMachineConfig as their config.',
      }),
    ),
    readyMachineCount: Type.Optional(
      Int32({
        description:
          'readyMachineCount represents the total number of ready machines targeted by the pool.',
      }),
    ),
    unavailableMachineCount: Type.Optional(
      Int32({
        description:
          'unavailableMachineCount represents the total number of unavailable (non-ready) machines targeted by the pool.',
      }),
    ),
    degradedMachineCount: Type.Optional(
      Int32({
        description:
          'degradedMachineCount represents the total number of machines marked degraded (or unreconcilable).',
      }),
    ),
    conditions: Type.Optional(
      Type.Array(McoConditionSchema, {
        description: 'conditions represents the latest available observations of current state.',
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
    certExpirys: Type.Optional(
      Type.Array(CertExpirySchema, {
        description: 'certExpirys keeps track of important certificate expiration data',
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
    poolSynchronizersStatus: Type.Optional(
      Type.Array(PoolSynchronizerStatusSchema, {
        description:
          'poolSynchronizersStatus is the status of the machines managed by the pool synchronizers.',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['poolSynchronizerType'],
      }),
    ),
    osImageStream: Type.Optional(OSImageStreamReferenceSchema),
  },
  { description: 'status contains observed information about the machine config pool.' },
);
export type MachineConfigPoolStatus = Static<typeof MachineConfigPoolStatusSchema>;

export const MachineConfigPoolSchema = kindSchema(
  'MachineConfigPool describes a pool of MachineConfigs.\n\nCompatibility level 1: Stable within a major release for a minimum of 12 months or 3 minor releases (whichever is longer).',
  {
    spec: MachineConfigPoolSpecSchema,
    status: Type.Optional(MachineConfigPoolStatusSchema),
  },
);
export type MachineConfigPool = Static<typeof MachineConfigPoolSchema>;

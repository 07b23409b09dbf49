/**
 * MachineConfigNode (docs/reference/api.md §2.7): the per-node update progress record, named like its
 * Node. The operator creates it (owner = Node); the daemon reports each update phase as a condition.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Int32, Int64, RawObject } from '../../schema.js';
import { ConditionSchema } from '../../meta/v1/condition.js';
import { kindSchema } from '../../meta/v1/kind.js';

const ObjectName = (description: string): ReturnType<typeof Type.String> =>
  Type.String({ description, maxLength: 253 });

const NameReferenceSchema = Type.Object({
  name: ObjectName(
    'name is the name of the object being referenced (a node or machine config pool).',
  ),
});

const MachineConfigNodeSpecSchema = Type.Object(
  {
    node: NameReferenceSchema,
    pool: NameReferenceSchema,
    configVersion: Type.Object({
      desired: ObjectName(
        'desired is the name of the machine config that the node should be upgraded to (`not-yet-set` before the first target).',
      ),
    }),
    configImage: Type.Optional(
      Type.Object({ desiredImage: Type.String({ minLength: 1, maxLength: 447 }) }),
    ),
  },
  { description: 'spec describes the configuration of the machine config node.' },
);

const MachineConfigNodeStatusPinnedImageSetSchema = Type.Object({
  name: ObjectName('name is the name of the pinned image set.'),
  currentGeneration: Type.Optional(Int32({ minimum: 1 })),
  desiredGeneration: Type.Optional(Int32({ minimum: 1 })),
  lastFailedGeneration: Type.Optional(Int32({ minimum: 1 })),
  lastFailedGenerationError: Type.Optional(Type.String({ maxLength: 32768 })),
});

const IrreconcilableChangeDiffSchema = Type.Object({
  fieldPath: Type.String({ minLength: 1, maxLength: 70 }),
  diff: Type.String({ minLength: 1, maxLength: 4096 }),
});

const MachineConfigNodeStatusSchema = Type.Object(
  {
    conditions: Type.Optional(
      Type.Array(ConditionSchema, {
        maxItems: 20,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
    observedGeneration: Type.Optional(Int64({ minimum: 1 })),
    configVersion: Type.Optional(
      Type.Object({
        current: Type.Optional(
          ObjectName('current is the name of the machine config currently in use on the node.'),
        ),
        desired: ObjectName('desired is the MachineConfig the node wants to upgrade to.'),
      }),
    ),
    configImage: Type.Optional(
      Type.Object({
        currentImage: Type.Optional(Type.String({ minLength: 1, maxLength: 447 })),
        desiredImage: Type.Optional(Type.String({ minLength: 1, maxLength: 447 })),
      }),
    ),
    pinnedImageSets: Type.Optional(
      Type.Array(MachineConfigNodeStatusPinnedImageSetSchema, {
        maxItems: 100,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      }),
    ),
    irreconcilableChanges: Type.Optional(
      Type.Array(IrreconcilableChangeDiffSchema, { 'x-kubernetes-list-type': 'atomic' }),
    ),
    internalReleaseImage: Type.Optional(RawObject()),
  },
  { description: 'status describes the last observed state of this machine config node.' },
);

export const MachineConfigNodeSchema = Type.Object(
  kindSchema('MachineConfigNode describes the health of the Machines on the system', {
    spec: MachineConfigNodeSpecSchema,
    status: Type.Optional(MachineConfigNodeStatusSchema),
  }).properties,
  {
    description: 'MachineConfigNode describes the health of the Machines on the system',
    'x-kubernetes-validations': [
      {
        message: 'spec.node.name should match metadata.name',
        rule: 'self.metadata.name == self.spec.node.name',
      },
    ],
  },
);
export type MachineConfigNode = Static<typeof MachineConfigNodeSchema>;

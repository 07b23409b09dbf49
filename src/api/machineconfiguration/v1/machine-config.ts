/**
 * MachineConfig (docs/reference/api.md §2.2): one piece of machine configuration, an Ignition config plus
 * OS-level knobs. Cluster-scoped, no status. Rendered configs (`rendered-<pool>-<hash>`) are
 * MachineConfigs too.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, RawObject } from '../../schema.js';
import { kindSchema, listSchema } from '../../meta/v1/kind.js';

const MachineConfigSpecSchema = Type.Object(
  {
    osImageURL: Type.Optional(
      Type.String({
        description: 'OSImageURL specifies the remote location that will be used to fetch the OS.',
      }),
    ),
    baseOSExtensionsContainerImage: Type.Optional(
      Type.String({
        description:
          'BaseOSExtensionsContainerImage specifies the remote location that will be used to fetch the extensions container matching a new-format OS image',
      }),
    ),
    config: Type.Optional(
      Nullable(
        RawObject({
          description: 'Config is a Ignition Config object (spec 2.2 or 3.0-3.5).',
        }),
      ),
    ),
    kernelArguments: Type.Optional(
      Nullable(
        Type.Array(Type.String(), {
          description:
            'kernelArguments contains a list of kernel arguments to be added; an entry may hold several space-separated arguments.',
          'x-kubernetes-list-type': 'atomic',
        }),
      ),
    ),
    extensions: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'extensions contains a list of additional features that can be enabled on host',
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
    fips: Type.Optional(Type.Boolean({ description: 'fips controls FIPS mode' })),
    kernelType: Type.Optional(
      Type.String({
        description:
          'kernelType contains which kernel we want to be running like default (traditional), realtime, 64k-pages (aarch64 only).',
      }),
    ),
  },
  { description: 'MachineConfigSpec is the spec for MachineConfig' },
);
export type MachineConfigSpec = Static<typeof MachineConfigSpecSchema>;

export const MachineConfigSchema = kindSchema(
  'MachineConfig defines the configuration for a machine\n\nCompatibility level 1: Stable within a major release for a minimum of 12 months or 3 minor releases (whichever is longer).',
  { spec: Type.Optional(MachineConfigSpecSchema) },
);
export type MachineConfig = Static<typeof MachineConfigSchema>;

export const MachineConfigListSchema = listSchema(
  'MachineConfigList is a list of MachineConfig resources',
  MachineConfigSchema,
);

/**
 * MachineOSConfig (docs/reference/image-mode.md §4): On-Cluster Layering for one pool. Its name
 * is the pool's; `containerFile` is what the administrator adds on top of the pool's OS image,
 * `renderedImagePushSpec` where each build's image goes (the tag is replaced by the build's name).
 * Cluster-scoped, status subresource, as upstream's CRD.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Int64, StringEnum } from '../../schema.js';
import { ConditionSchema } from '../../meta/v1/condition.js';
import { kindSchema } from '../../meta/v1/kind.js';

/**
 * `host[:port][/ns]/name:tag` with a dot in the host (`localhost:5000/x:t` is rejected,
 * `127.0.0.1:5000/x:t` passes), or an in-cluster `svc.ns.svc:port/repo/name:tag`.
 */
export const PushSpecPattern =
  '^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]*[a-zA-Z0-9])\\.)+([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]*[a-zA-Z0-9])(:[0-9]+)?(/[a-zA-Z0-9._-]+)*/[a-zA-Z0-9._-]+:[a-zA-Z0-9._-]+$';
/** The same host rule, by digest. */
export const DigestSpecPattern =
  '^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]*[a-zA-Z0-9])\\.)+([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]*[a-zA-Z0-9])(:[0-9]+)?(/[a-zA-Z0-9._-]+)*/[a-zA-Z0-9._-]+@sha256:[a-f0-9]{64}$';

const ContainerfileArch = ['ARM64', 'AMD64', 'PPC64LE', 'S390X', 'NoArch'] as const;

const SecretReferenceSchema = Type.Object({
  name: Type.String({
    description: 'name is the name of the secret in the MCO namespace.',
    minLength: 1,
    maxLength: 253,
  }),
});

export const ObjectReferenceSchema = Type.Object({
  group: Type.String({ maxLength: 253 }),
  resource: Type.String({ minLength: 1, maxLength: 63 }),
  namespace: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  name: Type.String({ minLength: 1, maxLength: 253 }),
});

const MachineOSContainerfileSchema = Type.Object({
  containerfileArch: Type.Optional(
    StringEnum(ContainerfileArch, {
      description: 'containerfileArch describes the architecture this containerfile is for.',
      default: 'NoArch',
    }),
  ),
  content: Type.String({
    description: 'content is an embedded Containerfile/Dockerfile that defines the customisation.',
    minLength: 1,
    maxLength: 4096,
  }),
});

const MachineOSConfigSpecSchema = Type.Object({
  machineConfigPool: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 253 }),
  }),
  imageBuilder: Type.Object({
    imageBuilderType: StringEnum(['Job'], {
      description: 'imageBuilderType specifies the backend to be used to build the image.',
    }),
  }),
  baseImagePullSecret: Type.Optional(SecretReferenceSchema),
  renderedImagePushSecret: SecretReferenceSchema,
  renderedImagePushSpec: Type.String({ minLength: 1, maxLength: 447, pattern: PushSpecPattern }),
  containerFile: Type.Optional(
    Type.Array(MachineOSContainerfileSchema, {
      maxItems: 4,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['containerfileArch'],
    }),
  ),
});

const MachineOSConfigStatusSchema = Type.Object({
  conditions: Type.Optional(
    Type.Array(ConditionSchema, {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    }),
  ),
  observedGeneration: Type.Optional(Int64({ minimum: 0 })),
  currentImagePullSpec: Type.Optional(
    Type.String({ minLength: 1, maxLength: 447, pattern: DigestSpecPattern }),
  ),
  machineOSBuild: Type.Optional(ObjectReferenceSchema),
});

export const MachineOSConfigSchema = Type.Object(
  kindSchema('MachineOSConfig describes the configuration for a build process managed by the MCO', {
    spec: MachineOSConfigSpecSchema,
    status: Type.Optional(MachineOSConfigStatusSchema),
  }).properties,
  {
    description:
      'MachineOSConfig describes the configuration for a build process managed by the MCO',
    'x-kubernetes-validations': [
      {
        message: 'MachineOSConfig name must match the referenced MachineConfigPool name',
        rule: 'self.metadata.name == self.spec.machineConfigPool.name',
      },
    ],
  },
);
export type MachineOSConfig = Static<typeof MachineOSConfigSchema>;

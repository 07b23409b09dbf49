/**
 * config.openshift.io/v1 Image (singleton `cluster`): how the cluster treats image registries.
 * The registries controller reads `spec.registrySources` (insecure, blocked, allowed and search
 * registries) into `99-<pool>-generated-registries`; `additionalTrustedCA` names a ConfigMap of
 * registry CAs (docs/reference/registries.md §1, §10).
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { RegistryEntryRule } from './registry-scopes.js';

export const ImageConfigName = 'cluster';

/** A ConfigMap in `openshift-config`, by name. */
export const ConfigMapNameReferenceSchema = Type.Object({
  name: Type.String({ description: 'name is the metadata.name of the referenced config map' }),
});

const registryList = (description: string) =>
  Type.Optional(
    Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 256,
        'x-kubernetes-validations': [RegistryEntryRule],
      }),
      { description, maxItems: 1024, 'x-kubernetes-list-type': 'atomic' },
    ),
  );

const RegistrySourcesSchema = Type.Object(
  {
    insecureRegistries: registryList(
      'insecureRegistries are registries which do not have a valid TLS certificate or only support HTTP connections.',
    ),
    blockedRegistries: registryList(
      'blockedRegistries cannot be used for image pull and push actions. All other registries are permitted.',
    ),
    allowedRegistries: registryList(
      'allowedRegistries are the only registries permitted for image pull and push actions. All other registries are denied.',
    ),
    containerRuntimeSearchRegistries: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'containerRuntimeSearchRegistries are the registries searched, in order, for images named without a registry (short names).',
        format: 'hostname',
        minItems: 1,
        'x-kubernetes-list-type': 'set',
      }),
    ),
  },
  {
    description:
      'registrySources contains configuration that determines how the container runtime should treat individual registries when accessing images.',
    'x-kubernetes-validations': [
      {
        rule: 'has(self.blockedRegistries) ? !has(self.allowedRegistries) : true',
        message: 'Only one of blockedRegistries or allowedRegistries may be set',
      },
    ],
  },
);

const RegistryLocationSchema = Type.Object({
  domainName: Type.Optional(Type.String({ description: 'domainName of the registry.' })),
  insecure: Type.Optional(Type.Boolean({ description: 'insecure allows plain HTTP.' })),
});

const ImportModeSchema = StringEnum(['', 'Legacy', 'PreserveOriginal']);

const ImageSpecSchema = Type.Object(
  {
    allowedRegistriesForImport: Type.Optional(
      Type.Array(RegistryLocationSchema, { 'x-kubernetes-list-type': 'atomic' }),
    ),
    externalRegistryHostnames: Type.Optional(
      Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' }),
    ),
    additionalTrustedCA: Type.Optional(
      Type.Object(ConfigMapNameReferenceSchema.properties, {
        description:
          'additionalTrustedCA names a ConfigMap in openshift-config whose keys are registry hostnames (host..port for a port) and whose values are PEM CA bundles.',
      }),
    ),
    registrySources: Type.Optional(RegistrySourcesSchema),
    imageStreamImportMode: Type.Optional(ImportModeSchema),
  },
  { description: 'spec holds user settable values for configuration' },
);

const ImageStatusSchema = Type.Object(
  {
    internalRegistryHostname: Type.Optional(Type.String()),
    externalRegistryHostnames: Type.Optional(
      Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' }),
    ),
    imageStreamImportMode: Type.Optional(ImportModeSchema),
  },
  { description: 'status holds observed values from the cluster. They may not be overridden.' },
);

export const ImageSchema = kindSchema(
  'Image governs policies related to imagestream imports and runtime configuration for external registries.',
  { spec: ImageSpecSchema, status: Type.Optional(ImageStatusSchema) },
);
export type Image = Static<typeof ImageSchema>;

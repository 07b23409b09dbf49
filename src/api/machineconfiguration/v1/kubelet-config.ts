/**
 * KubeletConfig (docs/reference/api.md §2.5): user kubelet settings for the pools its selector matches;
 * the kubelet-config controller turns each into `99-<pool>-generated-kubelet[-N]` MachineConfigs.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Int32, Int64, Nullable, RawObject, StringEnum } from '../../schema.js';
import { McoConditionSchema } from '../../meta/v1/condition.js';
import { kindSchema, listSchema } from '../../meta/v1/kind.js';
import { labelSelectorSchema } from '../../meta/v1/label-selector.js';

const TlsProfileSpecSchema = Type.Object({
  ciphers: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })),
  minTLSVersion: Type.Optional(
    StringEnum(['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13']),
  ),
});

/** config.openshift.io TLSSecurityProfile: one of the named profiles or a custom one. */
export const TLSSecurityProfileSchema = Type.Object({
  type: Type.Optional(StringEnum(['Old', 'Intermediate', 'Modern', 'Custom'])),
  old: Type.Optional(Nullable(Type.Object({}))),
  intermediate: Type.Optional(Nullable(Type.Object({}))),
  modern: Type.Optional(Nullable(Type.Object({}))),
  custom: Type.Optional(Nullable(TlsProfileSpecSchema)),
});
export type TLSSecurityProfile = Static<typeof TLSSecurityProfileSchema>;

export const KubeletConfigSpecSchema = Type.Object(
  {
    autoSizingReserved: Type.Optional(Type.Boolean()),
    logLevel: Type.Optional(Int32()),
    machineConfigPoolSelector: Type.Optional(
      labelSelectorSchema(
        'machineConfigPoolSelector selects which pools the KubeletConfig shoud apply to.\nA nil selector will result in no pools being selected.',
      ),
    ),
    kubeletConfig: Type.Optional(
      RawObject({
        description:
          'kubeletConfig fields are defined in kubernetes upstream (KubeletConfiguration); validation is left to the kubelet.',
      }),
    ),
    tlsSecurityProfile: Type.Optional(TLSSecurityProfileSchema),
    dropInConfig: Type.Optional(
      Type.Object({
        configDirectory: Type.String(),
        configFile: Type.String(),
        kubeletConfig: RawObject(),
      }),
    ),
  },
  { description: 'spec contains the desired kubelet configuration.' },
);
export type KubeletConfigSpec = Static<typeof KubeletConfigSpecSchema>;

export const KubeletConfigStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(Int64()),
    conditions: Type.Optional(Type.Array(McoConditionSchema)),
  },
  { description: 'status contains observed information about the kubelet configuration.' },
);
export type KubeletConfigStatus = Static<typeof KubeletConfigStatusSchema>;

export const KubeletConfigSchema = kindSchema(
  'KubeletConfig describes a customized Kubelet configuration.',
  {
    spec: KubeletConfigSpecSchema,
    status: Type.Optional(KubeletConfigStatusSchema),
  },
);
export type KubeletConfig = Static<typeof KubeletConfigSchema>;

export const KubeletConfigListSchema = listSchema(
  'KubeletConfigList is a list of KubeletConfig resources',
  KubeletConfigSchema,
);
export type KubeletConfigList = Static<typeof KubeletConfigListSchema>;

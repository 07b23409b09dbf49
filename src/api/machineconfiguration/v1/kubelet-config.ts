/**
 * KubeletConfig (docs/reference/api.md §2.5): user kubelet settings for the pools its selector matches;
 * the kubelet-config controller turns each into `99-<pool>-generated-kubelet[-N]` MachineConfigs.
 */
import { Type, type Static } from '@sinclair/typebox';
import { TLSSecurityProfileSchema } from '../../config/v1/tls-security-profile.js';
import { Int32, Int64, RawObject } from '../../schema.js';
import { McoConditionSchema } from '../../meta/v1/condition.js';
import { kindSchema } from '../../meta/v1/kind.js';
import { labelSelectorSchema } from '../../meta/v1/label-selector.js';

const KubeletConfigSpecSchema = Type.Object(
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
  },
  { description: 'spec contains the desired kubelet configuration.' },
);

const KubeletConfigStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(Int64()),
    conditions: Type.Optional(Type.Array(McoConditionSchema)),
  },
  { description: 'status contains observed information about the kubelet configuration.' },
);

export const KubeletConfigSchema = kindSchema(
  'KubeletConfig describes a customized Kubelet configuration.',
  {
    spec: KubeletConfigSpecSchema,
    status: Type.Optional(KubeletConfigStatusSchema),
  },
);
export type KubeletConfig = Static<typeof KubeletConfigSchema>;

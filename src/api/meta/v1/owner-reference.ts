/**
 * metav1.OwnerReference: who owns an object (rendered MC → pool, generated MC → KubeletConfig,
 * MachineConfigNode → Node, pod → DaemonSet). Drains skip pods whose controller is a DaemonSet.
 */
import { Type, type Static } from '@sinclair/typebox';

export const OwnerReferenceSchema = Type.Object(
  {
    apiVersion: Type.String({ description: 'API version of the referent.' }),
    kind: Type.String({ description: 'Kind of the referent.' }),
    name: Type.String({ description: 'Name of the referent.' }),
    uid: Type.String({ description: 'UID of the referent.' }),
    controller: Type.Optional(
      Type.Boolean({ description: 'If true, this reference points to the managing controller.' }),
    ),
    blockOwnerDeletion: Type.Optional(
      Type.Boolean({
        description:
          'If true, the owner cannot be deleted from the key-value store until this reference is removed.',
      }),
    ),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);
export type OwnerReference = Static<typeof OwnerReferenceSchema>;

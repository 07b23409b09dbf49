/**
 * core/v1 Pod, the subset a drain needs: owner references (DaemonSet pods are skipped), the node it
 * runs on, containers, emptyDir volumes (local data), the grace period and the phase (finished pods
 * are deleted without eviction). Unknown fields are preserved.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Int32, Int64, IntOrString, Nullable, StringMap } from '../../schema.js';
import { kindSchema } from '../../meta/v1/kind.js';

/** Annotation the kubelet puts on mirror pods of static pods; drains ignore those. */
export const MirrorPodAnnotation = 'kubernetes.io/config.mirror';

const ContainerSchema = Type.Object(
  {
    name: Type.String(),
    image: Type.Optional(Type.String()),
    command: Type.Optional(Type.Array(Type.String())),
    args: Type.Optional(Type.Array(Type.String())),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);
export type Container = Static<typeof ContainerSchema>;

const EmptyDirVolumeSourceSchema = Type.Object({
  medium: Type.Optional(Type.String()),
  sizeLimit: Type.Optional(IntOrString()),
});

const VolumeSchema = Type.Object(
  {
    name: Type.String(),
    emptyDir: Type.Optional(EmptyDirVolumeSourceSchema),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);
export type Volume = Static<typeof VolumeSchema>;

const PodSpecSchema = Type.Object(
  {
    nodeName: Type.Optional(Type.String()),
    nodeSelector: Type.Optional(StringMap()),
    containers: Type.Array(ContainerSchema),
    initContainers: Type.Optional(Type.Array(ContainerSchema)),
    volumes: Type.Optional(Type.Array(VolumeSchema)),
    terminationGracePeriodSeconds: Type.Optional(Int64()),
    priority: Type.Optional(Int32()),
    tolerations: Type.Optional(
      Type.Array(Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true })),
    ),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);
export type PodSpec = Static<typeof PodSpecSchema>;

const PodStatusSchema = Type.Object(
  {
    phase: Type.Optional(Type.String()),
    reason: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    podIP: Type.Optional(Type.String()),
    hostIP: Type.Optional(Type.String()),
    startTime: Type.Optional(Nullable(DateTime())),
    conditions: Type.Optional(
      Type.Array(
        Type.Object(
          { type: Type.String(), status: Type.String() },
          { 'x-kubernetes-preserve-unknown-fields': true },
        ),
      ),
    ),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);
export type PodStatus = Static<typeof PodStatusSchema>;

export const PodSchema = kindSchema('Pod is a collection of containers that can run on a host.', {
  spec: Type.Optional(PodSpecSchema),
  status: Type.Optional(PodStatusSchema),
});
export type Pod = Static<typeof PodSchema>;

/**
 * The pods a drain leaves on the node, as `kubectl drain --ignore-daemonsets` does
 * (k8s.io/kubectl/pkg/drain filters): a static pod's mirror, and a DaemonSet's pods. Everything
 * else is evicted.
 */
import { MirrorPodAnnotation, type Pod } from '../../api/core/v1/pod.js';

export type PodSkipReason = 'DaemonSet' | 'Mirror';

export function podDrainSkipReason(pod: Pod): PodSkipReason | undefined {
  if (pod.metadata.annotations?.[MirrorPodAnnotation] !== undefined) return 'Mirror';
  const controller = pod.metadata.ownerReferences?.find((o) => o.controller === true);
  if (controller?.kind === 'DaemonSet') return 'DaemonSet';
  return undefined;
}

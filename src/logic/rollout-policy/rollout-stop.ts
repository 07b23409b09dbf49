/**
 * The stop the node controller writes on a pool when it reverts a node (annotation
 * `rollout.mco.dev/stopped`, lifted by `mco rollout resume`). A stop that does not parse is no
 * stop: only the controller writes it, and a mangled one must not hold a pool forever.
 */
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutAnnotation,
  type RolloutStop,
} from '../../api/machineconfiguration/v1/rollout-policy.js';

export function readRolloutStop(pool: MachineConfigPool): RolloutStop | undefined {
  const text = pool.metadata.annotations?.[RolloutAnnotation.stopped];
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as Record<string, unknown> | null;
    const field = (k: string): string => (typeof v?.[k] === 'string' ? v[k] : '');
    return typeof v?.['target'] === 'string'
      ? {
          target: v['target'],
          node: field('node'),
          revertTo: field('revertTo'),
          reason: field('reason'),
        }
      : undefined;
  } catch {
    return undefined;
  }
}

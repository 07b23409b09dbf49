/**
 * A pool's rollback (`mco rollout undo`): the annotation that makes the node controller roll out
 * an earlier rendered config instead of the pool's rendered target, for as long as that target is
 * the one it replaced (docs/adr/0022-rollout-policy.md). Rendered names hash the rendered content,
 * so re-rendering the same MachineConfigs keeps the rollback; a changed MachineConfig renders a
 * new name and the rollback lapses, handing the pool back to the new render.
 */
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutAnnotation,
  type PoolRollback,
} from '../../api/machineconfiguration/v1/rollout-policy.js';

/** The rendered config to roll out instead of the target, or undefined when none applies. */
export function activeRollback(pool: MachineConfigPool): PoolRollback | undefined {
  const text = pool.metadata.annotations?.[RolloutAnnotation.rollback];
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { to, from } = (v ?? {}) as { to?: unknown; from?: unknown };
  const target = pool.spec.configuration?.name ?? '';
  if (typeof to !== 'string' || typeof from !== 'string' || to === '' || from !== target)
    return undefined;
  return { to, from };
}

/** The pool as the node controller rolls it out: the rollback's config as its target. */
export function withRollbackTarget(pool: MachineConfigPool, to: string): MachineConfigPool {
  const kept = pool.status?.configuration;
  return {
    ...pool,
    spec: {
      ...pool.spec,
      configuration: {
        name: to,
        ...(kept?.name === to && kept.source !== undefined ? { source: kept.source } : {}),
      },
    },
  };
}

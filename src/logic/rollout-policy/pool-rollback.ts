/**
 * A pool's rollback (`mco rollout undo`): the annotation that makes the node controller roll out
 * an earlier rendered config instead of the pool's rendered target, for as long as that target is
 * the one it replaced (docs/adr/0022-rollout-policy.md). Rendered names hash the rendered content,
 * so re-rendering the same MachineConfigs keeps the rollback; a changed MachineConfig renders a
 * new name and the rollback lapses, handing the pool back to the new render.
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
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

/**
 * The rendered config the pool is rolling out: its rollback's while one applies, else its
 * rendered target. What the pool is done at, what a canary is released for, what its nodes must
 * reach: status, `get pools`, resume and the dashboard all ask this one question. Given the
 * MachineConfigs, a rollback to a config that is gone does not count: the node controller
 * ignores it and rolls out the rendered target.
 */
export function rolloutTarget(
  pool: MachineConfigPool,
  machineConfigs?: readonly MachineConfig[],
): string {
  const rendered = pool.spec.configuration?.name ?? '';
  const to = activeRollback(pool)?.to;
  if (to === undefined) return rendered;
  if (machineConfigs !== undefined && !machineConfigs.some((mc) => mc.metadata.name === to))
    return rendered;
  return to;
}

/**
 * A change planned against a cluster: its pools, MachineConfigs, ControllerConfig and
 * MachineConfiguration/cluster with the change's MachineConfigs and pools applied as `kubectl
 * apply` would apply them, the pool rendered as the render controller would render it, and the
 * plan of a running node on a given config for the result. `mco rollout preview` (per node) and
 * `mco render --from-cluster --explain` (for the pool's current config) both plan through here,
 * so the same inputs give them the same rendered name and the same verdict.
 */
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfiguration } from '../../api/operator/v1/machine-configuration.js';
import { err, ok, type Result } from '../../lib/result.js';
import {
  describeRenderPoolError,
  renderPool,
  type ControllerVersion,
  type RenderPoolError,
} from '../render/render-pool.js';
import { explainUpdate, knobsFromMachineConfiguration, type PlanKnobs } from './plan-knobs.js';
import type { PlanSummary } from './plan-summary.js';

/** What the cluster holds that a render and a node's plan depend on. */
export interface ClusterInputs {
  readonly pools: readonly MachineConfigPool[];
  readonly configs: readonly MachineConfig[];
  readonly controllerConfig: ControllerConfig | undefined;
  readonly machineConfiguration: MachineConfiguration | undefined;
}

/** The objects of the change: whole MachineConfigs and pools, applied by name. */
interface ChangeObjects {
  readonly configs: readonly MachineConfig[];
  readonly pools: readonly MachineConfigPool[];
}

export interface PoolChange {
  /** The pool after the change, with the rendered target it had before. */
  readonly pool: MachineConfigPool;
  readonly pools: readonly MachineConfigPool[];
  /** Every MachineConfig after the change, by name (rendered ones included). */
  readonly configs: ReadonlyMap<string, MachineConfig>;
  readonly knobs: PlanKnobs;
  readonly rendered: MachineConfig;
}

export type PoolChangeError =
  | { readonly kind: 'UnnamedConfig' }
  | { readonly kind: 'PoolNotFound'; readonly pool: string }
  | { readonly kind: 'Render'; readonly error: RenderPoolError };

export function describePoolChangeError(e: PoolChangeError): string {
  switch (e.kind) {
    case 'UnnamedConfig':
      return 'a MachineConfig in the files has no metadata.name';
    case 'PoolNotFound':
      return `machineconfigpool ${e.pool} not found (in the cluster or the files)`;
    case 'Render':
      return describeRenderPoolError(e.error);
  }
}

/** The MachineConfigs as the cluster holds them after `kubectl apply` of `applied` (all named). */
export function applyConfigs(
  cluster: readonly MachineConfig[],
  applied: readonly MachineConfig[],
): MachineConfig[] {
  const byName = new Map(cluster.map((mc) => [mc.metadata.name ?? '', mc]));
  for (const mc of applied) {
    const name = mc.metadata.name ?? '';
    const old = byName.get(name);
    byName.set(
      name,
      old === undefined ? mc : { ...mc, metadata: { ...old.metadata, ...mc.metadata } },
    );
  }
  return [...byName.values()];
}

/** The pools as the cluster holds them after `kubectl apply` of `applied`: spec replaced, status kept. */
export function applyPools(
  cluster: readonly MachineConfigPool[],
  applied: readonly MachineConfigPool[],
): MachineConfigPool[] {
  const byName = new Map(cluster.map((p) => [p.metadata.name ?? '', p]));
  for (const p of applied) {
    const name = p.metadata.name ?? '';
    const old = byName.get(name);
    byName.set(
      name,
      old === undefined
        ? { metadata: p.metadata, spec: p.spec }
        : {
            ...old,
            metadata: { ...old.metadata, ...p.metadata },
            spec: {
              ...p.spec,
              ...(old.spec.configuration === undefined
                ? {}
                : { configuration: old.spec.configuration }),
            },
          },
    );
  }
  return [...byName.values()];
}

export interface PoolChangeInput {
  readonly cluster: ClusterInputs;
  readonly change: ChangeObjects;
  readonly pool: string;
  /** The cluster's ControllerConfig unless given (base image flags applied to it). */
  readonly controllerConfig?: ControllerConfig | undefined;
  readonly version: ControllerVersion;
}

/**
 * The pool rendered with the change applied. The policies are those the operator puts in the
 * status (the defaults merged with the spec), so a policy just applied counts before the
 * operator has observed it; the version gates are not enforced, as in every offline render.
 */
export function renderPoolChange(input: PoolChangeInput): Result<PoolChange, PoolChangeError> {
  const { cluster, change } = input;
  if (change.configs.some((mc) => (mc.metadata.name ?? '') === ''))
    return err({ kind: 'UnnamedConfig' });
  const pools = applyPools(cluster.pools, change.pools);
  const pool = pools.find((p) => p.metadata.name === input.pool);
  if (pool === undefined) return err({ kind: 'PoolNotFound', pool: input.pool });
  const configs = new Map(
    applyConfigs(cluster.configs, change.configs).map((mc) => [mc.metadata.name ?? '', mc]),
  );
  const knobs = knobsFromMachineConfiguration(cluster.machineConfiguration);
  const target = pool.spec.configuration?.name;
  const rendered = renderPool({
    pool,
    configs: [...configs.values()],
    controllerConfig: input.controllerConfig ?? cluster.controllerConfig,
    version: input.version,
    enforceVersionGates: false,
    current: target === undefined ? undefined : configs.get(target),
    overrides: knobs.overrides,
  });
  if (!rendered.ok) return err({ kind: 'Render', error: rendered.error });
  return ok({ pool, pools, configs, knobs, rendered: rendered.value.config });
}

/**
 * The plan of a running node on the config named `current` for the change's result; `current`
 * defaults to the pool's rendered target (what an updated node runs).
 */
export function planFromConfig(
  change: PoolChange,
  current: string | undefined = change.pool.spec.configuration?.name,
  forceFile = false,
): Result<PlanSummary, string> {
  const from = current === undefined ? undefined : change.configs.get(current);
  if (from === undefined)
    return err(
      current === undefined
        ? `machineconfigpool ${change.pool.metadata.name ?? ''} has no rendered config yet`
        : `current config ${JSON.stringify(current)} not found`,
    );
  return explainUpdate(from, change.rendered, change.knobs, forceFile);
}

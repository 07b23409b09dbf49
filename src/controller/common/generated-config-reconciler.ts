/**
 * The shared reconcile of the two MachineConfig-generating controllers (upstream
 * syncKubeletConfig / syncContainerRuntimeConfig, docs/reference/api.md §2.5–2.6): for one
 * KubeletConfig or ContainerRuntimeConfig, wait for the ControllerConfig, validate, and for every
 * pool it selects write `99-<pool>-generated-<kind>[-N]` (role label = pool, owned by the config,
 * controller-version annotated), remember the name suffix on the config and hold it with a
 * finalizer; report Success/Failure on its status. Deleting the config deletes its MachineConfigs
 * (one finalizer at a time) before the config goes.
 */
import {
  Annotation,
  ControllerConfigName,
  Label,
} from '../../api/machineconfiguration/v1/constants.js';
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import type { McoCondition } from '../../api/meta/v1/condition.js';
import type { LabelSelector } from '../../api/meta/v1/label-selector.js';
import type { ObjectMeta } from '../../api/meta/v1/object-meta.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import { Resources } from '../../api/resource-refs.js';
import { appendCondition, configCondition } from '../../logic/kubelet-config/config-conditions.js';
import {
  describeManagedKeyError,
  managedConfigKey,
  selectsPool,
  suffixOf,
  type GeneratedKind,
} from '../../logic/kubelet-config/managed-config-key.js';
import type { Result } from '../../lib/result.js';
import { type Clock } from '../../ports/clock.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient, ResourceRef } from '../../ports/resource-client.js';
import { TerminalError, type Reconciler, type ReconcileResult } from '../../runtime/reconciler.js';
import { controllerConfigGate, describeGateError } from '../render/render-gates.js';
import { jsonEqual } from '../../lib/json-equal.js';
import { errorText } from '../../lib/error-text.js';

export interface GeneratingObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: { readonly machineConfigPoolSelector?: LabelSelector | undefined };
  status?: { observedGeneration?: number; conditions?: McoCondition[] } | undefined;
}

/** What differs between the kubelet and the container runtime flavour. */
export interface GeneratedConfigStrategy<T extends GeneratingObject> {
  readonly ref: ResourceRef;
  readonly generated: GeneratedKind;
  /** `could not get kubelet config key` / `could not get ctrcfg key`. */
  readonly keyErrorPrefix: string;
  /** Refusals that no retry fixes (a Failure condition, no requeue). */
  validate(config: T): string | undefined;
  /** The Ignition for one pool, or a message for the Failure condition. */
  generate(
    config: T,
    pool: MachineConfigPool,
    cc: ControllerConfig,
  ): Result<Record<string, unknown>, { message: string; terminal: boolean }>;
}

export interface GeneratedConfigReconcilerOptions<T extends GeneratingObject> {
  readonly client: ResourceClient;
  readonly configs: { get(name: string): T | undefined; list(): T[] };
  readonly pools: { list(): MachineConfigPool[] };
  readonly machineConfigs: { get(name: string): MachineConfig | undefined };
  readonly controllerConfigs: { get(name: string): ControllerConfig | undefined };
  readonly clock: Clock;
  readonly log: Logger;
  readonly versionHash: string;
  readonly strategy: GeneratedConfigStrategy<T>;
}

/**
 * kubeletConfigTriggerObjectChange: a spec change or a deletion matters, our own status and
 * annotation writes do not; while deleting, each dropped finalizer brings the next one.
 */
export function generatorChanged(a: GeneratingObject, b: GeneratingObject): boolean {
  if (a.metadata.deletionTimestamp !== b.metadata.deletionTimestamp) return true;
  if (b.metadata.deletionTimestamp !== undefined)
    return !jsonEqual(a.metadata.finalizers ?? [], b.metadata.finalizers ?? []);
  return !jsonEqual(a.spec, b.spec);
}

export class GeneratedConfigReconciler<T extends GeneratingObject> implements Reconciler {
  readonly #o: GeneratedConfigReconcilerOptions<T>;

  constructor(options: GeneratedConfigReconcilerOptions<T>) {
    this.#o = options;
  }

  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const { configs, controllerConfigs, strategy } = this.#o;
    const cc = controllerConfigs.get(ControllerConfigName);
    const gate = controllerConfigGate(cc);
    if (gate !== undefined) throw new Error(describeGateError(gate));
    if (cc === undefined) return undefined;
    const config = configs.get(name);
    if (config === undefined) return undefined;
    if (config.metadata.deletionTimestamp !== undefined) {
      await this.#cascadeDelete(config, signal);
      return undefined;
    }
    const invalid = strategy.validate(config);
    if (invalid !== undefined) {
      await this.#status(name, invalid, undefined, signal);
      throw new TerminalError(invalid);
    }
    const pools = this.#o.pools.list().filter((p) => selectsPool(config, p));
    if (pools.length === 0) {
      const message = `could not find any MachineConfigPool set for ${strategy.ref.kind}`;
      await this.#status(name, message, undefined, signal);
      throw new Error(message);
    }
    for (const pool of pools) await this.#syncPool(config, pool, cc, signal);
    await this.#status(name, undefined, undefined, signal);
    return undefined;
  }

  async #syncPool(
    config: T,
    pool: MachineConfigPool,
    cc: ControllerConfig,
    signal: AbortSignal,
  ): Promise<void> {
    const { strategy, log } = this.#o;
    const name = config.metadata.name ?? '';
    const poolName = pool.metadata.name ?? '';
    const key = managedConfigKey(pool, config, this.#o.configs.list(), strategy.generated);
    if (!key.ok) {
      const message = `${strategy.keyErrorPrefix}: ${describeManagedKeyError(key.error)}`;
      await this.#status(name, message, message, signal);
      throw new Error(message);
    }
    const mcName = key.value;
    const existing = this.#o.machineConfigs.get(mcName);
    if (existing !== undefined && this.#upToDate(config, existing)) return;
    const ignition = strategy.generate(config, pool, cc);
    if (!ignition.ok) {
      await this.#status(name, ignition.error.message, undefined, signal);
      if (ignition.error.terminal) throw new TerminalError(ignition.error.message);
      throw new Error(ignition.error.message);
    }
    await this.#ensureSuffix(config, suffixOf(mcName, poolName, strategy.generated), signal);
    await this.#write(
      config,
      this.#machineConfig({ config, poolName, mcName, existing, ignition: ignition.value }),
      existing === undefined,
      signal,
    );
    await this.#ensureFinalizer(name, mcName, signal);
    log.info(`applied ${strategy.ref.kind}`, {
      config: name,
      pool: poolName,
      machineConfig: mcName,
    });
  }

  /** Nothing to do: processed at this generation, successful, written by this version. */
  #upToDate(config: T, existing: MachineConfig): boolean {
    const conditions = config.status?.conditions ?? [];
    return (
      (config.status?.observedGeneration ?? 0) >= (config.metadata.generation ?? 0) &&
      conditions[conditions.length - 1]?.type === 'Success' &&
      existing.metadata.annotations?.[Annotation.generatedByControllerVersion] ===
        this.#o.versionHash
    );
  }

  #machineConfig({
    config,
    poolName,
    mcName,
    existing,
    ignition,
  }: {
    readonly config: T;
    readonly poolName: string;
    readonly mcName: string;
    readonly existing: MachineConfig | undefined;
    readonly ignition: Record<string, unknown>;
  }): MachineConfig {
    return {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: {
        ...(existing?.metadata ?? {}),
        name: mcName,
        labels: { ...existing?.metadata.labels, [Label.role]: poolName },
        annotations: { [Annotation.generatedByControllerVersion]: this.#o.versionHash },
        ownerReferences: [
          {
            apiVersion: 'machineconfiguration.openshift.io/v1',
            kind: this.#o.strategy.ref.kind,
            name: config.metadata.name ?? '',
            uid: config.metadata.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { ...existing?.spec, config: ignition },
    };
  }

  async #write(config: T, mc: MachineConfig, create: boolean, signal: AbortSignal): Promise<void> {
    const { client } = this.#o;
    try {
      if (create) await client.create(Resources.machineConfig, mc, { signal });
      else await client.update(Resources.machineConfig, mc, { signal });
    } catch (e) {
      const message = `could not Create/Update MachineConfig: ${errorText(e)}`;
      await this.#status(config.metadata.name ?? '', message, message, signal);
      throw new Error(message, { cause: e });
    }
  }

  async #ensureSuffix(config: T, suffix: string, signal: AbortSignal): Promise<void> {
    if (config.metadata.annotations?.[Annotation.mcNameSuffix] !== undefined) return;
    await this.#o.client.patch(
      this.#o.strategy.ref,
      config.metadata.name ?? '',
      { metadata: { annotations: { [Annotation.mcNameSuffix]: suffix } } },
      'merge',
      { signal },
    );
  }

  async #ensureFinalizer(name: string, mcName: string, signal: AbortSignal): Promise<void> {
    const { client, strategy } = this.#o;
    const fresh = await client.get<T>(strategy.ref, name, undefined, signal);
    const finalizers = fresh.metadata.finalizers ?? [];
    if (finalizers.includes(mcName)) return;
    await client.patch(
      strategy.ref,
      name,
      {
        metadata: {
          finalizers: [...finalizers, mcName],
          resourceVersion: fresh.metadata.resourceVersion,
        },
      },
      'merge',
      { signal },
    );
  }

  /** Deletes the MachineConfig named by the first finalizer, then drops that finalizer. */
  async #cascadeDelete(config: T, signal: AbortSignal): Promise<void> {
    const { client, strategy, log } = this.#o;
    const [first, ...rest] = config.metadata.finalizers ?? [];
    if (first === undefined) return;
    try {
      await client.delete(Resources.machineConfig, first, undefined, { signal });
    } catch (e) {
      if (!isStatusError(e, 'NotFound')) throw e;
    }
    log.info(`deleted ${strategy.ref.kind} machineconfig`, {
      config: config.metadata.name,
      machineConfig: first,
    });
    await client.patch(
      strategy.ref,
      config.metadata.name ?? '',
      { metadata: { finalizers: rest, resourceVersion: config.metadata.resourceVersion } },
      'merge',
      { signal },
    );
  }

  /** syncStatusOnly: observedGeneration and one more Success/Failure condition. */
  async #status(
    name: string,
    error: string | undefined,
    message: string | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const { client, strategy, clock } = this.#o;
    try {
      const fresh = await client.get<T>(strategy.ref, name, undefined, signal);
      const condition = configCondition(error, rfc3339(clock.now()), message);
      const conditions = appendCondition(fresh.status?.conditions ?? [], condition);
      await client.updateStatus(
        strategy.ref,
        {
          ...fresh,
          status: {
            ...fresh.status,
            observedGeneration: fresh.metadata.generation ?? 0,
            conditions,
          },
        },
        { signal },
      );
    } catch (e) {
      // Upstream logs a failed status write; the sync's own outcome decides the retry.
      this.#o.log.warn(`error updating ${strategy.ref.kind} status`, {
        config: name,
        error: errorText(e),
      });
    }
  }
}

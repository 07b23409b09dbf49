/**
 * The render controller's reconcile for one pool (upstream syncMachineConfigPool,
 * docs/reference/render.md §3.2–3.3): read the pool, the MachineConfigs and the gates from the caches, call
 * the pure `renderPool`, then write: the rendered MachineConfig (owned by the pool, so garbage
 * collection removes it with the pool), the pool's `spec.configuration`, and `RenderDegraded`.
 */
import { EventType } from '../../api/core/v1/event.js';
import {
  Annotation,
  ControllerConfigName,
  PoolConditionType,
} from '../../api/machineconfiguration/v1/constants.js';
import type { ContainerRuntimeConfig } from '../../api/machineconfiguration/v1/container-runtime-config.js';
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import type { KubeletConfig } from '../../api/machineconfiguration/v1/kubelet-config.js';
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import { Resources } from '../../api/resource-refs.js';
import { setMcoCondition } from '../../api/meta/v1/condition-list.js';
import { isEmptySelector } from '../../api/meta/v1/label-selector-matching.js';
import type { ReconcileOverrides } from '../../logic/render/reconcile.js';
import { MachineConfigValidationCache } from '../../logic/render/validation-cache.js';
import {
  describeRenderPoolError,
  renderPool,
  type ControllerVersion,
  type RenderedPool,
} from '../../logic/render/render-pool.js';
import { type Clock } from '../../ports/clock.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import type { Reconciler, ReconcileResult } from '../../runtime/reconciler.js';
import { applyMachineConfig, applyMachineConfigOver } from '../common/apply-machine-config.js';
import type { EventRecorder } from '../../runtime/event-recorder.js';
import type { ClusterMachineConfiguration } from '../mco-informers.js';
import { SubControllerMetricName, type McoMetrics } from '../../ports/mco-metrics.js';
import { jsonEqual } from '../../lib/json-equal.js';
import { AuditAnnotation } from '../../api/machineconfiguration/v1/update-audit.js';
import { sourceStamps } from '../../logic/audit/source-stamps.js';
import { controllerConfigGate, describeGateError, generatorsGate } from './render-gates.js';
import { errorText } from '../../lib/error-text.js';

/** Read access to the caches the render controller needs (informers satisfy it). */
interface RenderCaches {
  readonly pools: { get(name: string): MachineConfigPool | undefined };
  readonly machineConfigs: {
    get(name: string): MachineConfig | undefined;
    list(): MachineConfig[];
  };
  readonly controllerConfigs: { get(name: string): ControllerConfig | undefined };
  readonly kubeletConfigs: { list(): KubeletConfig[] };
  readonly containerRuntimeConfigs: { list(): ContainerRuntimeConfig[] };
  readonly machineConfigurations: { get(name: string): ClusterMachineConfiguration | undefined };
}

export interface RenderReconcilerOptions {
  readonly client: ResourceClient;
  readonly caches: RenderCaches;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: EventRecorder;
  readonly version: ControllerVersion;
  /** `os_image_url_override{pool}` after each render; none when absent. */
  readonly metrics?: Pick<McoMetrics, 'setOsImageUrlOverride' | 'subControllerSynced'>;
}

/** A gate that is still closed: retried with backoff, the pool's conditions untouched. */
export class RenderGateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderGateError';
  }
}

/** Rendering failed; RenderDegraded=True carries the same message. Retried. */
export class RenderFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderFailedError';
  }
}

const MachineConfigurationName = 'cluster';

/** The Warning event a render failure raises on its pool (ours; upstream raises none). */
const RenderFailedReason = 'RenderFailed';

function overridesFrom(
  mc: ClusterMachineConfiguration | undefined,
): ReconcileOverrides | undefined {
  const storage = mc?.spec?.irreconcilableValidationOverrides?.storage;
  return storage === undefined ? undefined : { storage };
}

function isSelectingAll(pool: MachineConfigPool): boolean {
  const selector = pool.spec.machineConfigSelector;
  return selector !== undefined && isEmptySelector(selector);
}

export class RenderReconciler implements Reconciler {
  readonly #o: RenderReconcilerOptions;
  /** Each MachineConfig version is validated once, not once per render of every pool. */
  readonly #validations = new MachineConfigValidationCache();

  constructor(options: RenderReconcilerOptions) {
    this.#o = options;
  }

  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const { caches, events } = this.#o;
    const pool = caches.pools.get(name);
    if (pool === undefined) return undefined;
    if (isSelectingAll(pool)) {
      await events.event(
        Resources.machineConfigPool,
        pool,
        EventType.Warning,
        'SelectingAll',
        'This machineconfigpool is selecting all machineconfigs. A non-empty selector is required.',
      );
      return undefined;
    }
    const cc = caches.controllerConfigs.get(ControllerConfigName);
    const gate =
      controllerConfigGate(cc) ??
      generatorsGate(pool, caches.kubeletConfigs.list(), caches.containerRuntimeConfigs.list());
    if (gate !== undefined) throw new RenderGateError(describeGateError(gate));

    const currentName = pool.spec.configuration?.name ?? '';
    const current = currentName === '' ? undefined : caches.machineConfigs.get(currentName);
    const overrides = overridesFrom(caches.machineConfigurations.get(MachineConfigurationName));
    const configs = caches.machineConfigs.list();
    this.#validations.retain(configs);
    const rendered = renderPool({
      pool,
      configs,
      validations: this.#validations,
      controllerConfig: cc,
      version: this.#o.version,
      enforceVersionGates: true,
      current,
      ...(overrides === undefined ? {} : { overrides }),
    });
    if (!rendered.ok) {
      const message = describeRenderPoolError(rendered.error);
      await this.#fail(pool, message, signal);
      throw new RenderFailedError(message);
    }
    this.#o.metrics?.setOsImageUrlOverride(
      name,
      rendered.value.config.metadata.annotations?.[Annotation.osImageUrlOverridden] === 'true',
    );
    const updated = await this.#persist(pool, rendered.value, cc, signal);
    await this.#setRenderDegraded(updated, 'False', '', signal);
    return undefined;
  }

  /**
   * RenderDegraded=True with the failure, and a Warning event about it. Upstream only sets the
   * condition; the event puts the failure where users look (`kubectl get events`, `oc describe
   * mcp`). Once per failure: retries of the same one add nothing.
   */
  async #fail(pool: MachineConfigPool, message: string, signal: AbortSignal): Promise<void> {
    const existing = pool.status?.conditions?.find(
      (c) => c.type === PoolConditionType.RenderDegraded,
    );
    if (existing?.status !== 'True' || existing.message !== message)
      await this.#o.events.event(
        Resources.machineConfigPool,
        pool,
        EventType.Warning,
        RenderFailedReason,
        message,
      );
    try {
      await this.#setRenderDegraded(pool, 'True', message, signal);
    } catch (e) {
      // Upstream logs a failed status write and reports the render error itself.
      this.#o.log.error('could not set RenderDegraded', {
        pool: pool.metadata.name,
        error: errorText(e),
      });
    }
  }

  /** Creates the rendered config if new and points the pool at it (or refreshes its sources). */
  async #persist(
    pool: MachineConfigPool,
    rendered: RenderedPool,
    cc: ControllerConfig | undefined,
    signal: AbortSignal,
  ): Promise<MachineConfigPool> {
    const { client, caches, log } = this.#o;
    const name = rendered.config.metadata.name ?? '';
    const existing = caches.machineConfigs.get(name);
    if (existing === undefined) await this.#create(pool, rendered, cc);
    const source = rendered.source.map((s) => ({ ...s }));
    if (pool.spec.configuration?.name === name) {
      // From the cache: a render that changes nothing costs no request.
      if (existing === undefined) await applyMachineConfig(client, rendered.config, signal);
      else await applyMachineConfigOver(client, rendered.config, existing, signal);
      if (jsonEqual(pool.spec.configuration.source ?? [], source)) return pool;
    } else {
      log.info('pool now targets rendered config', {
        pool: pool.metadata.name,
        from: pool.spec.configuration?.name ?? '',
        to: name,
      });
    }
    const updated = await client.update<MachineConfigPool>(
      Resources.machineConfigPool,
      { ...pool, spec: { ...pool.spec, configuration: { name, source } } },
      { signal },
    );
    this.#o.metrics?.subControllerSynced(
      SubControllerMetricName.render,
      'Sync Machine Config Pool with new MC',
      pool.metadata.name ?? '',
    );
    return updated;
  }

  async #create(
    pool: MachineConfigPool,
    rendered: RenderedPool,
    cc: ControllerConfig | undefined,
  ): Promise<void> {
    const { client, events, log, version, caches } = this.#o;
    const name = rendered.config.metadata.name ?? '';
    // Why this config was made, frozen with it: who last changed each source (update audit).
    const sources = rendered.source.flatMap((s) => {
      const mc = caches.machineConfigs.get(s.name ?? '');
      return mc === undefined ? [] : [mc];
    });
    const config: MachineConfig = {
      ...rendered.config,
      metadata: {
        ...rendered.config.metadata,
        annotations: {
          ...rendered.config.metadata.annotations,
          [AuditAnnotation.sources]: JSON.stringify(sourceStamps(sources)),
        },
      },
    };
    try {
      await client.create(Resources.machineConfig, config);
    } catch (e) {
      // Another writer (or our stale cache) beat us to it: the content is the same by its name.
      if (isStatusError(e, 'AlreadyExists')) return;
      throw e;
    }
    log.info('generated rendered config', {
      pool: pool.metadata.name,
      name,
      sources: rendered.source.length,
    });
    const release = cc?.metadata.annotations?.[Annotation.releaseImageVersion] ?? '';
    await events.event(
      Resources.machineConfigPool,
      pool,
      EventType.Normal,
      'RenderedConfigGenerated',
      `${name} successfully generated (release version: ${release}, controller version: ${version.hash})`,
    );
  }

  /** Sets RenderDegraded unless it already says exactly that (False is only written if needed). */
  async #setRenderDegraded(
    pool: MachineConfigPool,
    status: 'True' | 'False',
    message: string,
    signal: AbortSignal,
  ): Promise<void> {
    const conditions = pool.status?.conditions ?? [];
    const existing = conditions.find((c) => c.type === PoolConditionType.RenderDegraded);
    if (status === 'False' && existing?.status === 'False') return;
    const next = setMcoCondition(
      conditions,
      { type: PoolConditionType.RenderDegraded, status, reason: '', message },
      rfc3339(this.#o.clock.now()),
    );
    if (jsonEqual(next, conditions)) return;
    await this.#o.client.updateStatus(
      Resources.machineConfigPool,
      { ...pool, status: { ...pool.status, conditions: next } },
      { signal },
    );
  }
}

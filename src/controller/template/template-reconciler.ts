/**
 * The template controller's reconcile (upstream syncControllerConfig, docs/reference/api.md §2.4): for the
 * ControllerConfig, generate `00-<role>`, `01-<role>-kubelet` and `01-<role>-container-runtime`
 * from the template folder (pure: src/logic/template), apply them (owned by the ControllerConfig),
 * and report TemplateControllerRunning / Completed / Failing on its status.
 */
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import { Resources } from '../../api/resource-refs.js';
import {
  describeTemplateError,
  generateTemplateMachineConfigs,
  type TemplateFile,
} from '../../logic/template/generate-template-configs.js';
import { type Clock } from '../../ports/clock.js';
import { rfc3339 } from '../../api/meta/v1/time.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import type { Reconciler, ReconcileResult } from '../../runtime/reconciler.js';
import { applyMachineConfig } from '../common/apply-machine-config.js';
import { SubControllerMetricName, type McoMetrics } from '../../ports/mco-metrics.js';
import { jsonEqual } from '../../lib/json-equal.js';
import { completedStatus, failingStatus, runningStatus } from './template-status.js';
import { errorText } from '../../lib/error-text.js';

export interface TemplateReconcilerOptions {
  readonly client: ResourceClient;
  readonly controllerConfigs: { get(name: string): ControllerConfig | undefined };
  readonly templates: readonly TemplateFile[];
  readonly clock: Clock;
  readonly log: Logger;
  /** upstream version.Raw (status messages) and version.Hash (MC annotation). */
  readonly version: { readonly raw: string; readonly hash: string };
  readonly metrics?: Pick<McoMetrics, 'subControllerSynced'>;
}

export class TemplateReconciler implements Reconciler {
  readonly #o: TemplateReconcilerOptions;

  constructor(options: TemplateReconcilerOptions) {
    this.#o = options;
  }

  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const { client, version, log } = this.#o;
    let cc = this.#o.controllerConfigs.get(name);
    if (cc === undefined) return undefined;
    if ((cc.metadata.generation ?? 0) !== (cc.status?.observedGeneration ?? 0))
      cc = await this.#writeStatus(cc, runningStatus(cc, version.raw, this.#now()), signal);

    const generated = generateTemplateMachineConfigs({
      controllerConfig: cc,
      templates: this.#o.templates,
      versionHash: version.hash,
      owner: {
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'ControllerConfig',
        name: cc.metadata.name ?? '',
        uid: cc.metadata.uid ?? '',
        controller: true,
        blockOwnerDeletion: true,
      },
    });
    if (!generated.ok) return this.#fail(cc, describeTemplateError(generated.error), signal);
    for (const mc of generated.value) {
      try {
        const outcome = await applyMachineConfig(client, mc, signal);
        if (outcome !== 'unchanged')
          log.info(`machineconfig ${outcome}`, { name: mc.metadata.name });
        this.#o.metrics?.subControllerSynced(
          SubControllerMetricName.template,
          'Sync Controller Config',
          mc.metadata.name ?? '',
        );
      } catch (e) {
        return this.#fail(cc, errorText(e), signal);
      }
    }
    await this.#writeStatus(cc, completedStatus(cc, version.raw, this.#now()), signal);
    return undefined;
  }

  #now(): string {
    return rfc3339(this.#o.clock.now());
  }

  async #fail(cc: ControllerConfig, error: string, signal: AbortSignal): Promise<never> {
    await this.#writeStatus(cc, failingStatus(cc, this.#o.version.raw, error, this.#now()), signal);
    throw new Error(error);
  }

  async #writeStatus(
    cc: ControllerConfig,
    status: ControllerConfig['status'],
    signal: AbortSignal,
  ): Promise<ControllerConfig> {
    if (jsonEqual(cc.status, status)) return cc;
    return this.#o.client.updateStatus<ControllerConfig>(
      Resources.controllerConfig,
      { ...cc, ...(status === undefined ? {} : { status }) },
      { signal },
    );
  }
}

/**
 * MachineConfigController (upstream syncMachineConfigController → syncControllerConfig): write the
 * ControllerConfig for this release and wait until the template controller has completed it.
 * Upstream blocks for up to 5 minutes; we return and look again, and fail the same way when the
 * time is up.
 */
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import { ControllerConfigName } from '../../api/machineconfiguration/v1/constants.js';
import { Resources } from '../../api/resource-refs.js';
import { ImageConfigName } from '../../api/config/v1/image.js';
import {
  certificateInputs,
  ConfigManagedNamespace,
  ConfigNamespace,
} from '../../logic/operator/certificate-inputs.js';
import { liveGet } from '../../runtime/live-get.js';
import { OperatorTask } from '../../logic/operator/cluster-operator-status.js';
import {
  applyControllerConfig,
  controllerConfigCompleted,
  describeControllerConfigNotCompleted,
} from '../../logic/operator/controller-config.js';
import { Done, type OperatorStep, type RoundContext, type TaskOutcome } from '../operator-task.js';

/** The ControllerConfig's CA fields from the cluster's ConfigMaps, Image and Proxy. */
function clusterCertificates(caches: RoundContext['deps']['caches']) {
  return certificateInputs({
    managed: (name) => caches.managedConfigMaps.get(`${ConfigManagedNamespace}/${name}`),
    config: (name) => caches.userConfigMaps.get(`${ConfigNamespace}/${name}`),
    image: caches.images.get(ImageConfigName),
    proxy: caches.proxies.get('cluster'),
  });
}

export class ControllerConfigStep implements OperatorStep {
  readonly task = OperatorTask.MachineConfigController;
  /** The generation we last wrote: the cache must have caught up before it can be completed. */
  #written = 0;
  /** When the current wait began (our clock), or undefined when not waiting. */
  #waitingSince: number | undefined;

  async run(ctx: RoundContext): Promise<TaskOutcome> {
    const failed = await this.#write(ctx);
    if (failed !== undefined) return failed;
    return this.#awaitCompleted(ctx);
  }

  /** Writes the ControllerConfig when it differs; a failure to read the cluster's CAs is the outcome. */
  async #write(ctx: RoundContext): Promise<TaskOutcome | undefined> {
    const { client, caches, config } = ctx.deps;
    const osImages = ctx.osImages;
    if (osImages === undefined) throw new Error('RenderConfig has not run');
    const existing = await liveGet<ControllerConfig>({
      client,
      ref: Resources.controllerConfig,
      name: ControllerConfigName,
      namespace: undefined,
      signal: ctx.signal,
    });
    const inputs = clusterCertificates(caches);
    if (!inputs.ok) return { kind: 'Failed', message: inputs.error };
    const { kubeAPIServerServingCAData, ...certificates } = inputs.value;
    const desired = applyControllerConfig(existing, {
      osImages,
      releaseVersion: config.versions.operator,
      operatorVersion: config.operatorVersion,
      rootCAData: Buffer.from(config.machineConfigServer.caBundle).toString('base64'),
      // after bootstrap the cluster's bundle replaces the one the operator was started with
      kubeAPIServerServingCAData: kubeAPIServerServingCAData ?? config.kubeAPIServerServingCAData,
      certificates,
      ...(config.cluster === undefined ? {} : { cluster: config.cluster }),
      discovered: ctx.discovered,
    });
    if (desired === undefined) return undefined;
    const written =
      existing === undefined
        ? await client.create<ControllerConfig>(Resources.controllerConfig, desired, {
            signal: ctx.signal,
          })
        : await client.update<ControllerConfig>(Resources.controllerConfig, desired, {
            signal: ctx.signal,
          });
    this.#written = written.metadata.generation ?? 0;
    return undefined;
  }

  #awaitCompleted(ctx: RoundContext): TaskOutcome {
    const { caches, config, clock } = ctx.deps;
    const cached = caches.controllerConfigs.get(ControllerConfigName);
    const completed =
      cached !== undefined && (cached.metadata.generation ?? 0) >= this.#written
        ? controllerConfigCompleted(cached)
        : undefined;
    if (completed?.ok === true) {
      this.#waitingSince = undefined;
      return Done;
    }
    const now = clock.now();
    this.#waitingSince ??= now;
    const left = this.#waitingSince + config.timings.controllerConfigTimeoutMs - now;
    if (left > 0) return { kind: 'Pending', requeueAfterMs: Math.min(config.timings.pollMs, left) };
    this.#waitingSince = undefined;
    const why =
      completed === undefined
        ? 'controllerconfig is not in the cache yet'
        : `controllerconfig is not completed: ${describeControllerConfigNotCompleted(completed.error)}`;
    return {
      kind: 'Failed',
      message: `error during waitForControllerConfigToBeCompleted: [context deadline exceeded, ${why}]`,
    };
  }
}

/**
 * Cluster mode's ConfigSource (upstream `cluster_server.go`, docs/reference/mcs.md §6.3): the pool, its
 * rendered MachineConfig and the ControllerConfig come from informers (the controllers' list+watch
 * caches), so a request never makes an API round trip; the served
 * config is `spec.configuration` once a node of the pool has updated
 * (`status.updatedMachineCount > 0`), else `status.configuration`, so new machines neither
 * deadlock on a broken old config nor boot into one they would leave right away.
 *
 * The node kubeconfig is built per request by the caller's function (the bootstrap token files
 * can rotate); the `kubeconfig-data` ConfigMap's `ca-bundle.crt`, when present, is its CA.
 */
import { ControllerConfigName, McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import type { ConfigMap } from '../api/core/v1/config-map.js';
import { Resources } from '../api/resource-refs.js';
import type { Result } from '../lib/result.js';
import { err, ok } from '../lib/result.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { VersionedBytes } from './bootstrap-config-source.js';
import type { ConfigSource, ConfigSourceError, ServingInputs } from './config-source.js';
import { Informer } from '../runtime/informer.js';

/** The ConfigMap whose `ca-bundle.crt` is the node kubeconfig's CA, when it exists. */
const KubeconfigDataConfigMap = 'kubeconfig-data';

export interface ClusterConfigSourceOptions {
  readonly client: ResourceClient;
  readonly log: Logger;
  readonly clock: Clock;
  /**
   * The node kubeconfig, given the CA bundle from the `kubeconfig-data` ConfigMap (undefined: use
   * the token folder's `ca.crt`). An error message fails the request (500), as upstream does.
   */
  readonly kubeconfig: (
    caBundle: Uint8Array | undefined,
  ) => Promise<Result<VersionedBytes, string>>;
}

/**
 * The rendered config new machines get: the pool's target once one of its nodes has updated to
 * it, else the config all its nodes run.
 */
export function servedConfigName(pool: MachineConfigPool): string {
  return (pool.status?.updatedMachineCount ?? 0) > 0
    ? (pool.spec.configuration?.name ?? '')
    : (pool.status?.configuration?.name ?? '');
}

export class ClusterConfigSource implements ConfigSource {
  readonly #o: ClusterConfigSourceOptions;
  readonly #pools: Informer<MachineConfigPool>;
  readonly #configs: Informer<MachineConfig>;
  readonly #controllerConfigs: Informer<ControllerConfig>;
  readonly #configMaps: Informer<ConfigMap>;

  constructor(options: ClusterConfigSourceOptions) {
    this.#o = options;
    const base = { client: options.client, log: options.log, clock: options.clock };
    this.#pools = new Informer({ ...base, ref: Resources.machineConfigPool });
    this.#configs = new Informer({ ...base, ref: Resources.machineConfig });
    this.#controllerConfigs = new Informer({ ...base, ref: Resources.controllerConfig });
    this.#configMaps = new Informer({
      ...base,
      ref: Resources.configMap,
      namespace: McoNamespace,
    });
  }

  get #caches() {
    return [this.#pools, this.#configs, this.#controllerConfigs, this.#configMaps] as const;
  }

  /** Runs the caches until `signal` aborts; `synced()` resolves after their first lists. */
  run(signal: AbortSignal): Promise<void> {
    return Promise.all(this.#caches.map((c) => c.run(signal))).then(() => undefined);
  }

  synced(): Promise<void> {
    return Promise.all(this.#caches.map((c) => c.waitForSync())).then(() => undefined);
  }

  #caBundle(): Uint8Array | undefined {
    const data = this.#configMaps.get(`${McoNamespace}/${KubeconfigDataConfigMap}`)?.binaryData?.[
      'ca-bundle.crt'
    ];
    return data === undefined ? undefined : Buffer.from(data, 'base64');
  }

  async getConfig(pool: string): Promise<Result<ServingInputs | undefined, ConfigSourceError>> {
    if (!this.#caches.every((c) => c.hasSynced())) return err({ kind: 'NotReady' });
    const mcp = this.#pools.get(pool);
    if (mcp === undefined) return err({ kind: 'PoolNotFound', pool });
    const name = servedConfigName(mcp);
    const mc = this.#configs.get(name);
    if (mc === undefined) return err({ kind: 'ConfigNotFound', name });
    const cc = this.#controllerConfigs.get(ControllerConfigName);
    if (cc === undefined) return err({ kind: 'ControllerConfigNotFound' });
    const kubeconfig = await this.#o.kubeconfig(this.#caBundle());
    if (!kubeconfig.ok)
      return err({ kind: 'Unreadable', what: 'the node kubeconfig', message: kubeconfig.error });
    return ok({
      pool,
      machineConfig: mc,
      controllerConfig: cc,
      kubeconfig: kubeconfig.value.bytes,
      mode: 'cluster',
      revision: [
        mc.metadata.uid ?? '',
        mc.metadata.resourceVersion ?? '',
        cc.metadata.resourceVersion ?? '',
        kubeconfig.value.version,
      ].join('|'),
    });
  }
}

/**
 * The informers the operator reads from: every kind its round looks at. All are shared caches;
 * the round never lists from the server.
 */
import type { ClusterOperator } from '../api/config/v1/cluster-operator.js';
import type { DNS } from '../api/config/v1/dns.js';
import type { Image } from '../api/config/v1/image.js';
import type { Infrastructure } from '../api/config/v1/infrastructure.js';
import type { Network } from '../api/config/v1/network.js';
import type { Proxy } from '../api/config/v1/proxy.js';
import type { ConfigMap } from '../api/core/v1/config-map.js';
import type { Node } from '../api/core/v1/node.js';
import type { Secret } from '../api/core/v1/secret.js';
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfiguration } from '../api/operator/v1/machine-configuration.js';
import { Resources } from '../api/resource-refs.js';
import { ConfigManagedNamespace, ConfigNamespace } from '../logic/operator/certificate-inputs.js';
import { UserDataSecretNamespace } from '../logic/operator/user-data-secret.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { Informer } from '../runtime/informer.js';

export interface OperatorCaches {
  readonly nodes: Informer<Node>;
  readonly pools: Informer<MachineConfigPool>;
  readonly machineConfigNodes: Informer<MachineConfigNode>;
  readonly machineConfigs: Informer<MachineConfig>;
  readonly controllerConfigs: Informer<ControllerConfig>;
  /** ConfigMaps of the MCO namespace. */
  readonly configMaps: Informer<ConfigMap>;
  /** ConfigMaps of openshift-config-managed and openshift-config: the ControllerConfig's CAs. */
  readonly managedConfigMaps: Informer<ConfigMap>;
  readonly userConfigMaps: Informer<ConfigMap>;
  readonly images: Informer<Image>;
  // the cluster configuration the ControllerConfig is discovered from
  readonly infrastructures: Informer<Infrastructure>;
  readonly networks: Informer<Network>;
  readonly proxies: Informer<Proxy>;
  readonly dnses: Informer<DNS>;
  /** Secrets of `openshift-machine-api` (the pointer configs). */
  readonly userDataSecrets: Informer<Secret>;
  readonly clusterOperators: Informer<ClusterOperator>;
  /** MachineConfiguration/cluster (operator.openshift.io): its spec is the policies' input. */
  readonly machineConfigurations: Informer<MachineConfiguration>;
}

export function createOperatorCaches(deps: {
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly namespace: string;
}): OperatorCaches {
  const base = { client: deps.client, clock: deps.clock, log: deps.log };
  return {
    nodes: new Informer<Node>({ ...base, ref: Resources.node }),
    pools: new Informer<MachineConfigPool>({ ...base, ref: Resources.machineConfigPool }),
    machineConfigNodes: new Informer<MachineConfigNode>({
      ...base,
      ref: Resources.machineConfigNode,
    }),
    machineConfigs: new Informer<MachineConfig>({ ...base, ref: Resources.machineConfig }),
    controllerConfigs: new Informer<ControllerConfig>({
      ...base,
      ref: Resources.controllerConfig,
    }),
    configMaps: new Informer<ConfigMap>({
      ...base,
      ref: Resources.configMap,
      namespace: deps.namespace,
    }),
    managedConfigMaps: new Informer<ConfigMap>({
      ...base,
      ref: Resources.configMap,
      namespace: ConfigManagedNamespace,
    }),
    userConfigMaps: new Informer<ConfigMap>({
      ...base,
      ref: Resources.configMap,
      namespace: ConfigNamespace,
    }),
    images: new Informer<Image>({ ...base, ref: Resources.image }),
    infrastructures: new Informer<Infrastructure>({ ...base, ref: Resources.infrastructure }),
    networks: new Informer<Network>({ ...base, ref: Resources.network }),
    proxies: new Informer<Proxy>({ ...base, ref: Resources.proxy }),
    dnses: new Informer<DNS>({ ...base, ref: Resources.dns }),
    userDataSecrets: new Informer<Secret>({
      ...base,
      ref: Resources.secret,
      namespace: UserDataSecretNamespace,
    }),
    clusterOperators: new Informer<ClusterOperator>({ ...base, ref: Resources.clusterOperator }),
    machineConfigurations: new Informer<MachineConfiguration>({
      ...base,
      ref: Resources.machineConfiguration,
    }),
  };
}

/** Every cache, for the controller to watch. */
export function allCaches(c: OperatorCaches): readonly Informer[] {
  return [
    c.nodes,
    c.pools,
    c.machineConfigNodes,
    c.machineConfigs,
    c.controllerConfigs,
    c.configMaps,
    c.managedConfigMaps,
    c.userConfigMaps,
    c.images,
    c.infrastructures,
    c.networks,
    c.proxies,
    c.dnses,
    c.userDataSecrets,
    c.clusterOperators,
    c.machineConfigurations,
  ] as readonly Informer[];
}

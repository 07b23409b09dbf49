/**
 * The shared informers (caches) of `mco controller`: one per kind, shared by every sub-controller
 * that reads it, as upstream's shared informer factories are. The manager runs them whether or not
 * this process leads, so a standby has warm caches when it takes over.
 */
import type { Node } from '../api/core/v1/node.js';
import type { Pod } from '../api/core/v1/pod.js';
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import type { ContainerRuntimeConfig } from '../api/machineconfiguration/v1/container-runtime-config.js';
import type { ControllerConfig } from '../api/machineconfiguration/v1/controller-config.js';
import type { KubeletConfig } from '../api/machineconfiguration/v1/kubelet-config.js';
import type { MachineConfigNode } from '../api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { Resources } from '../api/resource-refs.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../ports/resource-client.js';
import { Informer, type InformerBackoff } from '../runtime/informer.js';

/**
 * The parts of operator.openshift.io/v1 MachineConfiguration `cluster` the controller reads: the
 * render-time reconcilability overrides (docs/reference/api.md §2.8, docs/reference/render.md §3.6).
 */
export interface ClusterMachineConfiguration extends ApiObject {
  spec?: {
    irreconcilableValidationOverrides?: {
      storage?: ('Disks' | 'FileSystems' | 'Raid')[];
    };
  };
}

/** The label of the operator's pod; the node controller updates that master node last. */
export const OperatorPodSelector = 'k8s-app=machine-config-operator';

export interface McoInformers {
  readonly pools: Informer<MachineConfigPool>;
  readonly machineConfigs: Informer<MachineConfig>;
  readonly controllerConfigs: Informer<ControllerConfig>;
  readonly nodes: Informer<Node>;
  readonly kubeletConfigs: Informer<KubeletConfig>;
  readonly containerRuntimeConfigs: Informer<ContainerRuntimeConfig>;
  readonly machineConfigNodes: Informer<MachineConfigNode>;
  readonly machineConfigurations: Informer<ClusterMachineConfiguration>;
  /** Only the operator's pod (namespace and label selected). */
  readonly operatorPods: Informer<Pod>;
}

export interface McoInformerOptions {
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly backoff?: InformerBackoff;
}

export function createMcoInformers(options: McoInformerOptions): McoInformers {
  const make = <T extends ApiObject>(
    ref: ResourceRef,
    scope: { namespace?: string; labelSelector?: string } = {},
  ): Informer<T> =>
    new Informer<T>({
      client: options.client,
      clock: options.clock,
      log: options.log.child({ informer: ref.plural }),
      ref,
      ...scope,
      ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
    });
  return {
    pools: make(Resources.machineConfigPool),
    machineConfigs: make(Resources.machineConfig),
    controllerConfigs: make(Resources.controllerConfig),
    nodes: make(Resources.node),
    kubeletConfigs: make(Resources.kubeletConfig),
    containerRuntimeConfigs: make(Resources.containerRuntimeConfig),
    machineConfigNodes: make(Resources.machineConfigNode),
    machineConfigurations: make(Resources.machineConfiguration),
    operatorPods: make(Resources.pod, {
      namespace: McoNamespace,
      labelSelector: OperatorPodSelector,
    }),
  };
}

/** Every informer of the set, for a manager to run. */
export function allInformers(informers: McoInformers): Informer[] {
  return Object.values(informers) as Informer[];
}

/**
 * The shared informers (caches) of `mco controller`: one per kind, shared by every sub-controller
 * that reads it, as upstream's shared informer factories are. The manager runs them whether or not
 * this process leads, so a standby has warm caches when it takes over.
 */
import type { ClusterImagePolicy } from '../api/config/v1/cluster-image-policy.js';
import type { ClusterVersion } from '../api/config/v1/cluster-version.js';
import type { ImagePolicy } from '../api/config/v1/image-policy.js';
import type { ImageDigestMirrorSet } from '../api/config/v1/image-digest-mirror-set.js';
import type { ImageTagMirrorSet } from '../api/config/v1/image-tag-mirror-set.js';
import type { Image } from '../api/config/v1/image.js';
import type { Node } from '../api/core/v1/node.js';
import type { ImageContentSourcePolicy } from '../api/operator/v1alpha1/image-content-source-policy.js';
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
const OperatorPodSelector = 'k8s-app=machine-config-operator';

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
  /** Every pod bound to a node (`spec.nodeName!=`): what drains evict. */
  readonly pods: Informer<Pod>;
  // the registries controller's inputs (docs/reference/registries.md §1)
  readonly images: Informer<Image>;
  readonly imageDigestMirrorSets: Informer<ImageDigestMirrorSet>;
  readonly imageTagMirrorSets: Informer<ImageTagMirrorSet>;
  readonly imageContentSourcePolicies: Informer<ImageContentSourcePolicy>;
  readonly clusterImagePolicies: Informer<ClusterImagePolicy>;
  /** ImagePolicies of every namespace. */
  readonly imagePolicies: Informer<ImagePolicy>;
  readonly clusterVersions: Informer<ClusterVersion>;
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
    scope: { namespace?: string; labelSelector?: string; fieldSelector?: string } = {},
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
    pods: make(Resources.pod, { fieldSelector: 'spec.nodeName!=' }),
    images: make(Resources.image),
    imageDigestMirrorSets: make(Resources.imageDigestMirrorSet),
    imageTagMirrorSets: make(Resources.imageTagMirrorSet),
    imageContentSourcePolicies: make(Resources.imageContentSourcePolicy),
    clusterImagePolicies: make(Resources.clusterImagePolicy),
    imagePolicies: make(Resources.imagePolicy),
    clusterVersions: make(Resources.clusterVersion),
  };
}

/** Every informer of the set, for a manager to run. */
export function allInformers(informers: McoInformers): Informer[] {
  return Object.values(informers) as Informer[];
}

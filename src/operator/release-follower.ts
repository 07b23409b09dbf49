/**
 * Wiring for an operator that follows release images set on ClusterVersion (`mco upgrade
 * --to-image`): the ClusterVersion informer, the configuration whose versions follow the accepted
 * release (release-config.ts), and the ClusterVersion controller (cluster-version-reconciler.ts),
 * which looks again whenever ClusterVersion, the ClusterOperator or an MCO ConfigMap changes.
 */
import type { ClusterVersion } from '../api/config/v1/cluster-version.js';
import { ClusterVersionName } from '../api/config/v1/cluster-version.js';
import { Resources } from '../api/resource-refs.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { Controller } from '../runtime/controller.js';
import { Informer } from '../runtime/informer.js';
import { ClusterVersionReconciler } from './cluster-version-reconciler.js';
import type { OperatorCaches } from './operator-caches.js';
import type { OperatorConfig } from './operator-config.js';
import { ClusterOperatorName } from './operator-reconciler.js';
import { releaseAwareConfig } from './release-config.js';
import type { ReleasePayloadSource } from '../ports/release-payload-source.js';

export interface ReleaseFollowerDeps {
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly caches: OperatorCaches;
  readonly config: OperatorConfig;
  readonly payloads: ReleasePayloadSource;
}

export interface ReleaseFollower {
  /** The operator's configuration, its versions those of the accepted release. */
  readonly config: OperatorConfig;
  readonly clusterVersions: Informer<ClusterVersion>;
  readonly controller: Controller;
}

export function createReleaseFollower(d: ReleaseFollowerDeps): ReleaseFollower {
  const clusterVersions = new Informer<ClusterVersion>({
    client: d.client,
    clock: d.clock,
    log: d.log,
    ref: Resources.clusterVersion,
  });
  const { namespace } = d.config;
  const controller = new Controller({
    name: 'cluster-version',
    reconciler: new ClusterVersionReconciler({
      client: d.client,
      clock: d.clock,
      log: d.log.child({ controller: 'cluster-version' }),
      namespace,
      payloads: d.payloads,
      clusterVersion: () => clusterVersions.get(ClusterVersionName),
      clusterOperator: () => d.caches.clusterOperators.get(ClusterOperatorName),
      configMap: (name) => d.caches.configMaps.get(`${namespace}/${name}`),
    }),
    clock: d.clock,
    log: d.log,
  });
  const version = (): readonly string[] => [ClusterVersionName];
  controller.watch(clusterVersions, { map: version });
  controller.watch(d.caches.clusterOperators, { map: version });
  controller.watch(d.caches.configMaps, { map: version });
  return {
    config: releaseAwareConfig(d.config, clusterVersions, d.caches.configMaps),
    clusterVersions,
    controller,
  };
}

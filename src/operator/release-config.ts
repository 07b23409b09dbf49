/**
 * The operator's release when it plays the cluster-version operator's part (a release image
 * was accepted into ClusterVersion): upstream's operator learns its release from the RELEASE_VERSION
 * of the Deployment the CVO rolls out; ours keeps running and reads it from ClusterVersion
 * `status.desired.version` once the release's ConfigMaps have landed
 * (logic/operator/release-versions.ts), with the operator image from the release's
 * `machine-config-operator-images` ConfigMap. Without a ClusterVersion (or before a release was
 * accepted) the configured versions stand. Read on every access, from the caches: level-based,
 * and right after a restart.
 */
import type { ClusterVersion } from '../api/config/v1/cluster-version.js';
import { ClusterVersionName } from '../api/config/v1/cluster-version.js';
import type { ConfigMap } from '../api/core/v1/config-map.js';
import type { OperatorVersions } from '../logic/operator/cluster-operator-status.js';
import type { Informer } from '../runtime/informer.js';
import { OperatorImagesConfigMapName } from '../logic/operator/release-config-maps.js';
import { OsImageUrlConfigMapName } from '../logic/operator/os-image-urls.js';
import { releaseVersions } from '../logic/operator/release-versions.js';
import type { OperatorConfig } from './operator-config.js';

/** The configuration with `versions` following the accepted release. */
export function releaseAwareConfig(
  config: OperatorConfig,
  clusterVersions: Informer<ClusterVersion>,
  configMaps: Informer<ConfigMap>,
): OperatorConfig {
  return {
    ...config,
    get versions(): OperatorVersions {
      return releaseVersions(
        config.versions,
        clusterVersions.get(ClusterVersionName),
        configMaps.get(`${config.namespace}/${OsImageUrlConfigMapName}`),
        configMaps.get(`${config.namespace}/${OperatorImagesConfigMapName}`),
      );
    },
  };
}

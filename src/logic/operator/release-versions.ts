/**
 * Which release the operator runs when it plays the cluster-version operator's part
 * (operator/release-config.ts): the one ClusterVersion accepted (`status.desired.version`), once
 * that release's `machine-config-osimageurl` has landed. Accepting a release and writing its
 * ConfigMaps are two writes; between them the ConfigMap still describes the release the cluster
 * runs, and an operator already on the new version would refuse it (`refusing to read osImageURL
 * version …`) and report Degraded on every upgrade. So while the ConfigMap names another release
 * that the cluster did run (the configured one, or one in ClusterVersion's history) the operator
 * stays on that one; a ConfigMap naming a release nobody accepted does not steer it. Pure.
 */
import type { ClusterVersion } from '../../api/config/v1/cluster-version.js';
import type { ConfigMap } from '../../api/core/v1/config-map.js';
import type { OperatorVersions } from './cluster-operator-status.js';
import { operatorImageFor } from './release-config-maps.js';

export function releaseVersions(
  configured: OperatorVersions,
  clusterVersion: ClusterVersion | undefined,
  osImageUrls: ConfigMap | undefined,
  operatorImages: ConfigMap | undefined,
): OperatorVersions {
  const desired = clusterVersion?.status?.desired?.version;
  if (desired === undefined || desired === '') return configured;
  const landed = osImageUrls?.data?.['releaseVersion'];
  const ran =
    landed !== undefined &&
    (landed === configured.operator ||
      (clusterVersion?.status?.history ?? []).some((h) => h.version === landed));
  const version = landed !== desired && ran ? landed : desired;
  if (version === configured.operator && version !== desired) return configured;
  return {
    operator: version,
    operatorImage: operatorImageFor(operatorImages?.data, version) ?? configured.operatorImage,
  };
}

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

/** Whether the cluster ran `version`: the configured release, or one ClusterVersion accepted. */
function ran(version: string, configured: string, cv: ClusterVersion): boolean {
  return version === configured || (cv.status?.history ?? []).some((h) => h.version === version);
}

export function releaseVersions(
  configured: OperatorVersions,
  clusterVersion: ClusterVersion | undefined,
  osImageUrls: ConfigMap | undefined,
  operatorImages: ConfigMap | undefined,
): OperatorVersions {
  const desired = clusterVersion?.status?.desired?.version ?? '';
  if (clusterVersion === undefined || desired === '') return configured;
  const landed = osImageUrls?.data?.['releaseVersion'] ?? desired;
  const version = ran(landed, configured.operator, clusterVersion) ? landed : desired;
  if (version === configured.operator && version !== desired) return configured;
  return {
    operator: version,
    operatorImage: operatorImageFor(operatorImages?.data, version) ?? configured.operatorImage,
  };
}

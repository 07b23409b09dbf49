/**
 * What the operator needs in the cluster besides RBAC and its CRDs: the MCO namespace with
 * upstream's labels (a privileged pod-security level: the daemon is privileged and on the host's
 * network and PID namespace), and the ConfigMaps upstream's install/ leaves for the operator,
 * written for this release as a release image would have them: `machine-config-osimageurl` (the
 * operator refuses one of another release) and `machine-config-operator-images` (read when it
 * follows release images). `OS_IMAGE` is a placeholder for the OS image the nodes run.
 */
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import { OsImageUrlConfigMapName } from '../logic/operator/os-image-urls.js';
import {
  OperatorImagesConfigMapName,
  operatorImagesData,
  osImageUrlData,
  type ReleaseImageInfo,
} from '../logic/operator/release-config-maps.js';
import { McoVersion } from '../version.js';
import type { Manifest } from './manifest.js';
import { McoImage } from './workloads.js';

const OsImagePlaceholder = 'OS_IMAGE';

const ThisRelease: ReleaseImageInfo = {
  version: McoVersion.raw,
  osImage: OsImagePlaceholder,
  osExtensionsImage: '',
  operatorImage: McoImage,
};

const configMap = (name: string, data: Record<string, string>): Manifest => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: McoNamespace },
  data,
});

export function clusterObjects(): { namespaces: Manifest[]; configMaps: Manifest[] } {
  return {
    namespaces: [
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: McoNamespace,
          labels: {
            'openshift.io/run-level': '',
            'openshift.io/cluster-monitoring': 'true',
            'pod-security.kubernetes.io/enforce': 'privileged',
            'pod-security.kubernetes.io/audit': 'privileged',
            'pod-security.kubernetes.io/warn': 'privileged',
          },
        },
      },
    ],
    configMaps: [
      configMap(OsImageUrlConfigMapName, osImageUrlData(ThisRelease)),
      configMap(OperatorImagesConfigMapName, operatorImagesData(ThisRelease)),
    ],
  };
}

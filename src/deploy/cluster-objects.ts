/**
 * What the operator needs in the cluster besides RBAC and its CRDs: the MCO namespace with
 * upstream's labels (a privileged pod-security level: the daemon is privileged and on the host's
 * network and PID namespace), and the `machine-config-osimageurl` ConfigMap the installer leaves
 * for the operator, written for this release (the operator refuses one of another release).
 * `OS_IMAGE` is a placeholder for the OS image the nodes run.
 */
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import { OsImageUrlConfigMapName } from '../logic/operator/os-image-urls.js';
import { McoVersion } from '../version.js';
import type { Manifest } from './manifest.js';

export const OsImagePlaceholder = 'OS_IMAGE';

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
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: OsImageUrlConfigMapName, namespace: McoNamespace },
        data: {
          releaseVersion: McoVersion.raw,
          baseOSContainerImage: OsImagePlaceholder,
          baseOSExtensionsContainerImage: '',
          osImageURL: '',
        },
      },
    ],
  };
}

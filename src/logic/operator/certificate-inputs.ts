/**
 * The certificate fields of the ControllerConfig, from the cluster's ConfigMaps as upstream's
 * operator reads them after bootstrap (docs/reference/certificates.md §1; `getImageRegistryBundles`,
 * `getTrustedBundle`, `syncCloudConfig` in `pkg/operator/sync.go`):
 *
 * - `kubeAPIServerServingCAData` ← `openshift-config-managed/kube-apiserver-client-ca`
 *   `ca-bundle.crt` (absent: the operator's flag, the bootstrap value);
 * - `cloudProviderCAData` ← `openshift-config-managed/kube-cloud-config` `ca-bundle.pem`;
 * - `imageRegistryBundleData` ← `openshift-config-managed/image-registry-ca`, and
 *   `imageRegistryBundleUserData` ← the ConfigMap in `openshift-config` that Image/cluster's
 *   `additionalTrustedCA` names: every `data` key (sorted; a value that decodes as base64 is
 *   decoded, else taken raw), then every `binaryData` key;
 * - `additionalTrustBundle` ← `openshift-config/user-ca-bundle` `ca-bundle.crt`.
 *
 * ControllerConfig's byte fields travel as base64.
 */
import type { ConfigMap } from '../../api/core/v1/config-map.js';
import type { Image } from '../../api/config/v1/image.js';
import type { ImageRegistryBundle } from '../../api/machineconfiguration/v1/controller-config.js';

export const ConfigManagedNamespace = 'openshift-config-managed';
export const ConfigNamespace = 'openshift-config';
const KubeletCaConfigMap = 'kube-apiserver-client-ca';
const CloudConfigMap = 'kube-cloud-config';
const ImageRegistryCaConfigMap = 'image-registry-ca';
const UserCaBundleConfigMap = 'user-ca-bundle';

export interface CertificateInputs {
  readonly kubeAPIServerServingCAData?: string;
  readonly cloudProviderCAData: string | null;
  readonly additionalTrustBundle: string | null;
  readonly imageRegistryBundleData: ImageRegistryBundle[];
  readonly imageRegistryBundleUserData: ImageRegistryBundle[];
}

export interface CertificateSources {
  /** A ConfigMap of `openshift-config-managed`, by name. */
  readonly managed: (name: string) => ConfigMap | undefined;
  /** A ConfigMap of `openshift-config`, by name. */
  readonly config: (name: string) => ConfigMap | undefined;
  readonly image?: Image | undefined;
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const StrictBase64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** upstream: a `data` value is base64-decoded if it decodes (Go skips only CR and LF), else used as is. */
function dataValue(value: string): string {
  const compact = value.replace(/[\r\n]/g, '');
  return compact !== '' && StrictBase64.test(compact) ? compact : b64(value);
}

export function registryBundles(cm: ConfigMap | undefined): ImageRegistryBundle[] {
  if (cm === undefined) return [];
  const data = Object.keys(cm.data ?? {})
    .sort()
    .map((file) => ({ file, data: dataValue(cm.data?.[file] ?? '') }));
  const binary = Object.keys(cm.binaryData ?? {})
    .sort()
    .map((file) => ({ file, data: cm.binaryData?.[file] ?? '' }));
  return [...data, ...binary];
}

function key(cm: ConfigMap | undefined, name: string): string | undefined {
  const v = cm?.data?.[name];
  return v === undefined || v === '' ? undefined : v;
}

export function certificateInputs(s: CertificateSources): CertificateInputs {
  const kubeletCa = key(s.managed(KubeletCaConfigMap), 'ca-bundle.crt');
  const cloudCa = key(s.managed(CloudConfigMap), 'ca-bundle.pem');
  const userCa = key(s.config(UserCaBundleConfigMap), 'ca-bundle.crt');
  const userRegistries = s.image?.spec.additionalTrustedCA?.name;
  return {
    ...(kubeletCa === undefined ? {} : { kubeAPIServerServingCAData: b64(kubeletCa) }),
    cloudProviderCAData: cloudCa === undefined ? null : b64(cloudCa),
    additionalTrustBundle: userCa === undefined ? null : b64(userCa),
    imageRegistryBundleData: registryBundles(s.managed(ImageRegistryCaConfigMap)),
    imageRegistryBundleUserData:
      userRegistries === undefined || userRegistries === ''
        ? []
        : registryBundles(s.config(userRegistries)),
  };
}

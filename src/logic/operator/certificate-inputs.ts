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
 * - `additionalTrustBundle` ← `openshift-config/user-ca-bundle` `ca-bundle.crt`, then the
 *   `ca-bundle.crt` of the `openshift-config` ConfigMap the Proxy's `spec.trustedCA` names (when it
 *   names another; upstream's getTrustedBundle), which must exist.
 *
 * ControllerConfig's byte fields travel as base64.
 */
import type { ConfigMap } from '../../api/core/v1/config-map.js';
import type { Image } from '../../api/config/v1/image.js';
import type { Proxy } from '../../api/config/v1/proxy.js';
import type { ImageRegistryBundle } from '../../api/machineconfiguration/v1/controller-config.js';
import { err, ok, type Result } from '../../lib/result.js';

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
  readonly proxy?: Proxy | undefined;
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

/**
 * Upstream's GetCAsFromConfigMap: `binaryData` first, else `data` (base64-decoded when it decodes,
 * else as written); as base64.
 */
function caBytes(cm: ConfigMap, name: string): Result<string, string> {
  const binary = cm.binaryData?.[name];
  if (binary !== undefined) return ok(binary);
  const text = cm.data?.[name];
  if (text !== undefined) return ok(dataValue(text));
  return err(`${name} not found in ${ConfigNamespace}/${cm.metadata.name ?? ''}`);
}

/** The Proxy's trusted CA bundle (base64), when its `trustedCA` names a ConfigMap of its own. */
function proxyTrustBundle(s: CertificateSources): Result<string | undefined, string> {
  const name = s.proxy?.spec.trustedCA?.name ?? '';
  if (name === '' || name === UserCaBundleConfigMap) return ok(undefined);
  const cm = s.config(name);
  if (cm === undefined) return err(`configmap ${JSON.stringify(name)} not found`);
  const bundle = caBytes(cm, 'ca-bundle.crt');
  if (!bundle.ok) return bundle;
  return ok(bundle.value === '' ? undefined : bundle.value);
}

export function certificateInputs(s: CertificateSources): Result<CertificateInputs, string> {
  const kubeletCa = key(s.managed(KubeletCaConfigMap), 'ca-bundle.crt');
  const cloudCa = key(s.managed(CloudConfigMap), 'ca-bundle.pem');
  const userCa = key(s.config(UserCaBundleConfigMap), 'ca-bundle.crt');
  const proxyCa = proxyTrustBundle(s);
  if (!proxyCa.ok) return proxyCa;
  const trust = Buffer.concat([
    Buffer.from(userCa ?? '', 'utf8'),
    Buffer.from(proxyCa.value ?? '', 'base64'),
  ]);
  const userRegistries = s.image?.spec.additionalTrustedCA?.name;
  return ok({
    ...(kubeletCa === undefined ? {} : { kubeAPIServerServingCAData: b64(kubeletCa) }),
    cloudProviderCAData: cloudCa === undefined ? null : b64(cloudCa),
    additionalTrustBundle: trust.length === 0 ? null : trust.toString('base64'),
    imageRegistryBundleData: registryBundles(s.managed(ImageRegistryCaConfigMap)),
    imageRegistryBundleUserData:
      userRegistries === undefined || userRegistries === ''
        ? []
        : registryBundles(s.config(userRegistries)),
  });
}

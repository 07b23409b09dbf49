/**
 * The values MachineConfig templates can use (`{{ .Name }}`), taken from the ControllerConfig:
 * upstream renders its templates against `ControllerConfigSpec` plus a few derived values; we
 * expose a small, documented set (docs/templates.md) under Go-style names.
 */
import type { ControllerConfig } from '../../api/machineconfiguration/v1/controller-config.js';
import type { TemplateContext, TemplateValue } from './render-template.js';

/** `none` when the ControllerConfig names no platform (upstream's default). */
const DefaultPlatform = 'none';

/**
 * The template folder name of the cluster's platform: `infra.status.platformStatus.type`
 * (or the deprecated `spec.platform`) lower-cased, e.g. `AWS` → `aws`, `BareMetal` → `baremetal`.
 */
export function templatePlatform(cc: ControllerConfig): string {
  const status = cc.spec.infra?.status;
  const type = status?.platformStatus?.type ?? status?.platform ?? cc.spec.platform ?? '';
  return type === '' ? DefaultPlatform : type.toLowerCase();
}

function stringMap(m: Readonly<Record<string, string>> | undefined): Record<string, TemplateValue> {
  return { ...(m ?? {}) };
}

function infraValues(cc: ControllerConfig): Record<string, TemplateValue> {
  const infra = cc.spec.infra?.status;
  return {
    InfraName: infra?.infrastructureName ?? '',
    APIServerURL: infra?.apiServerURL ?? '',
    APIServerInternalURL: infra?.apiServerInternalURI ?? '',
    ControlPlaneTopology: infra?.controlPlaneTopology ?? '',
  };
}

function proxyValues(cc: ControllerConfig): Record<string, TemplateValue> {
  const proxy = cc.spec.proxy;
  return {
    HTTPProxy: proxy?.httpProxy ?? '',
    HTTPSProxy: proxy?.httpsProxy ?? '',
    NoProxy: proxy?.noProxy ?? '',
  };
}

export function templateContext(cc: ControllerConfig, role: string): TemplateContext {
  const spec = cc.spec;
  return {
    Role: role,
    Platform: templatePlatform(cc),
    ClusterDNSIP: spec.clusterDNSIP,
    CloudProviderConfig: spec.cloudProviderConfig,
    Images: stringMap(spec.images),
    ReleaseImage: spec.releaseImage,
    BaseOSContainerImage: spec.baseOSContainerImage,
    IPFamilies: spec.ipFamilies,
    NetworkType: spec.networkType ?? '',
    ...infraValues(cc),
    Proxy: proxyValues(cc),
  };
}

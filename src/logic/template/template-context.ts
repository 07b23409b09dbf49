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

/**
 * Upstream's urlHost and urlPort template functions: the host (IPv6 without brackets) and the port,
 * by default the scheme's; empty for a URL they cannot read.
 */
function urlParts(u: string): { host: string; port: string } {
  let parsed: URL;
  try {
    parsed = new URL(u);
  } catch {
    return { host: '', port: '' };
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const defaults: Record<string, string> = { 'https:': '443', 'http:': '80' };
  // WHATWG URL drops a port equal to the scheme's default; Go keeps it: both read the same
  return { host, port: parsed.port !== '' ? parsed.port : (defaults[parsed.protocol] ?? '') };
}

function infraValues(cc: ControllerConfig): Record<string, TemplateValue> {
  const infra = cc.spec.infra?.status;
  const internal = urlParts(infra?.apiServerInternalURI ?? '');
  return {
    InfraName: infra?.infrastructureName ?? '',
    APIServerURL: infra?.apiServerURL ?? '',
    APIServerInternalURL: infra?.apiServerInternalURI ?? '',
    APIServerInternalHost: internal.host,
    APIServerInternalPort: internal.port,
    ControlPlaneTopology: infra?.controlPlaneTopology ?? '',
  };
}

/** Present only when the ControllerConfig has a proxy (upstream's `.Proxy` is a pointer). */
function proxyValues(cc: ControllerConfig): Record<string, TemplateValue> {
  // a ControllerConfig read from manifests (mco bootstrap) may leave the field out
  const proxy = cc.spec.proxy as ControllerConfig['spec']['proxy'] | undefined;
  if (proxy === null || proxy === undefined) return {};
  return {
    Proxy: {
      HTTPProxy: proxy.httpProxy ?? '',
      HTTPSProxy: proxy.httpsProxy ?? '',
      NoProxy: proxy.noProxy ?? '',
    },
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
    ...proxyValues(cc),
  };
}

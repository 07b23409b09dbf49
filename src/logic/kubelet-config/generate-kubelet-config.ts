/**
 * The Ignition a KubeletConfig becomes for one pool (upstream generateKubeletIgnFiles,
 * docs/reference/api.md §2.5): the pool role's template kubelet.conf with the user's fields merged over
 * it (mergo WithOverride: a user's zero values do not override, except an explicit
 * `protectKernelDefaults: false`), written back as YAML; plus, when asked, the kubelet log-level
 * drop-in and the node-sizing environment file. Pure.
 */
import { parse as parseYaml } from 'yaml';
import type { KubeletConfig } from '../../api/machineconfiguration/v1/kubelet-config.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { encodeDataUrlBase64, parseDataUrl } from '../../ignition/data-url.js';
import { marshalGoYaml, type JsonValue } from '../../lib/go-yaml.js';
import { err, ok, type Result } from '../../lib/result.js';
import { kubeletTlsFields } from './tls-profile.js';
import { userKubeletConfiguration } from './validate-kubelet-config.js';
import { errorText } from '../../lib/error-text.js';
import { GeneratedSpecVersion } from '../../ignition/versions.js';

const KubeletConfPath = '/etc/kubernetes/kubelet.conf';
const KubeletLogLevelPath = '/etc/systemd/system/kubelet.service.d/20-logging.conf';
const NodeSizingEnvPath = '/etc/node-sizing-enabled.env';

export type KubeletGenerateError =
  | { readonly kind: 'NoTemplateKubeletConfig'; readonly role: string }
  | { readonly kind: 'BadTemplateKubeletConfig'; readonly message: string };

export function describeKubeletGenerateError(e: KubeletGenerateError): string {
  switch (e.kind) {
    case 'NoTemplateKubeletConfig':
      return `could not generate the original Kubelet config ignition: could not generate old kubelet config (role ${e.role})`;
    case 'BadTemplateKubeletConfig':
      return `could not deserialize the Kubelet source: ${e.message}`;
  }
}

type Obj = Record<string, unknown>;

export interface IgnitionFileOut {
  readonly overwrite: true;
  readonly path: string;
  readonly contents: { readonly source: string };
  readonly mode: 420;
}

/** NewIgnFileBytesOverwriting: mode 0644, overwrite, contents as a base64 text data URL. */
export function ignFile(path: string, text: string): IgnitionFileOut {
  return {
    overwrite: true,
    path,
    contents: {
      source: encodeDataUrlBase64(new TextEncoder().encode(text), 'text/plain;charset=utf-8'),
    },
    mode: 420,
  };
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go's zero values: mergo leaves the destination alone for these. */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObj(v) && Object.keys(v).length === 0;
}

/** mergo.Merge(dst, src, WithOverride) over JSON: nested objects merge, other values replace. */
export function mergoOverride(dst: Obj, src: Obj): Obj {
  const out: Obj = { ...dst };
  for (const [k, v] of Object.entries(src)) {
    if (isZero(v)) continue;
    const d = out[k];
    out[k] = isObj(d) && isObj(v) ? mergoOverride(d, v) : v;
  }
  return out;
}

/** The template kubelet.conf of the role, from the template controller's MachineConfigs. */
export function originalKubeletConfig(
  templateConfigs: readonly MachineConfig[],
  role: string,
): Result<Obj, KubeletGenerateError> {
  for (const mc of templateConfigs) {
    if (mc.metadata.labels?.['machineconfiguration.openshift.io/role'] !== role) continue;
    const config = (mc.spec?.config ?? {}) as Obj;
    const files = ((config['storage'] as Obj | undefined)?.['files'] ?? []) as Obj[];
    const file = files.find((f) => f['path'] === KubeletConfPath);
    if (file === undefined) continue;
    const source = ((file['contents'] as Obj | undefined)?.['source'] ?? '') as string;
    const url = parseDataUrl(source);
    if (!url.ok) return err({ kind: 'BadTemplateKubeletConfig', message: 'bad data URL' });
    try {
      const parsed: unknown = parseYaml(new TextDecoder().decode(url.value.data));
      if (!isObj(parsed))
        return err({ kind: 'BadTemplateKubeletConfig', message: 'not a YAML mapping' });
      return ok(parsed);
    } catch (e) {
      return err({
        kind: 'BadTemplateKubeletConfig',
        message: errorText(e),
      });
    }
  }
  return err({ kind: 'NoTemplateKubeletConfig', role });
}

/** The template role a pool's kubelet comes from: control-plane pools their own, others worker. */
export function kubeletTemplateRole(pool: string): string {
  return pool === 'master' || pool === 'arbiter' ? pool : 'worker';
}

const SystemReservedKeys = ['memory', 'cpu', 'ephemeral-storage'] as const;

function nodeSizingEnv(
  auto: boolean | undefined,
  reserved: Readonly<Record<string, string>>,
): string {
  const pick = (k: string, d: string): string => {
    const v = reserved[k];
    return v !== undefined && v !== '' ? v : d;
  };
  return (
    `NODE_SIZING_ENABLED=${auto === undefined ? 'false' : String(auto)}\n` +
    `SYSTEM_RESERVED_MEMORY=${pick('memory', '1Gi')}\n` +
    `SYSTEM_RESERVED_CPU=${pick('cpu', '500m')}\n` +
    `SYSTEM_RESERVED_ES=${pick('ephemeral-storage', '1Gi')}\n`
  );
}

/** The user's fields to merge, with systemReserved sizes and feature gates taken out. */
function userFields(kc: KubeletConfig): { fields: Obj; reserved: Record<string, string> } {
  const fields: Obj = { ...userKubeletConfiguration(kc) };
  const reserved: Record<string, string> = {};
  const systemReserved = fields['systemReserved'];
  if (isObj(systemReserved)) {
    const rest: Obj = {};
    for (const [k, v] of Object.entries(systemReserved)) {
      if ((SystemReservedKeys as readonly string[]).includes(k)) reserved[k] = String(v);
      else rest[k] = v;
    }
    fields['systemReserved'] = rest;
  }
  // Feature gates come from the cluster's FeatureGate, never from the user.
  const withoutGates = Object.fromEntries(
    Object.entries(fields).filter(([k]) => k !== 'featureGates'),
  );
  return { fields: withoutGates, reserved };
}

/** The generated MachineConfig's Ignition (GeneratedSpecVersion): sizing, log level, kubelet.conf. */
export function generateKubeletIgnition(
  kc: KubeletConfig,
  original: Readonly<Obj>,
): Record<string, unknown> {
  const { fields, reserved } = userFields(kc);
  let merged: Obj = { ...original };
  if (Object.keys(userKubeletConfiguration(kc)).length > 0) {
    // mergo skips a user's false; upstream special-cases this one field (it defaults to true).
    if (userKubeletConfiguration(kc)['protectKernelDefaults'] === false)
      merged['protectKernelDefaults'] = false;
    merged = mergoOverride(merged, fields);
  }
  // A KubeletConfig's TLS profile replaces both fields (the cluster's APIServer profile otherwise).
  if (kc.spec.tlsSecurityProfile !== undefined) {
    const tls = kubeletTlsFields(kc.spec.tlsSecurityProfile);
    merged = { ...merged, tlsMinVersion: tls.tlsMinVersion, tlsCipherSuites: tls.tlsCipherSuites };
  }
  const files: IgnitionFileOut[] = [];
  const hasReserved = Object.keys(reserved).length > 0;
  if (kc.spec.autoSizingReserved !== undefined && !hasReserved)
    files.push(ignFile(NodeSizingEnvPath, nodeSizingEnv(kc.spec.autoSizingReserved, reserved)));
  if (hasReserved) files.push(ignFile(NodeSizingEnvPath, nodeSizingEnv(undefined, reserved)));
  if (kc.spec.logLevel !== undefined)
    files.push(
      ignFile(
        KubeletLogLevelPath,
        `[Service]\nEnvironment="KUBELET_LOG_LEVEL=${kc.spec.logLevel}"\n`,
      ),
    );
  files.push(ignFile(KubeletConfPath, marshalGoYaml(merged as JsonValue)));
  return { ignition: { version: GeneratedSpecVersion }, storage: { files } };
}

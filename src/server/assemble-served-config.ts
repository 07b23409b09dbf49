/**
 * What `/config/<pool>` serves, built from a source's inputs (upstream `GetConfig` + the API
 * handler's conversion, docs/reference/mcs.md §6.2–6.3), in this order:
 *  1. the rendered MachineConfig's Ignition, in the internal spec;
 *  2. for targets below 3.3, kernel arguments moved from Ignition into the MachineConfig;
 *  3. `/etc/kubernetes/kubelet-ca.crt` and the cloud CA bundle refreshed from the ControllerConfig;
 *  4. the appended files: node annotations, kubeconfig, the initial MachineConfig content, extra
 *     files (bootstrap certificates), and last the encapsulated MachineConfig;
 *  5. translated down to the negotiated spec and serialized as Go would.
 */
import { Annotation, DaemonState } from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { encodeDataUrl } from '../ignition/data-url.js';
import type { McoParseError } from '../ignition/mco-parse.js';
import { describeMcoParseError, parseAndConvertConfig } from '../ignition/mco-parse.js';
import { serializeIgnition } from '../ignition/serialize.js';
import type { TranslateDownError } from '../ignition/translate-down.js';
import { describeTranslateDownError, translateDown } from '../ignition/translate-down.js';
import type { IgnitionConfig, IgnitionFile } from '../ignition/types.js';
import type { SpecVersion } from '../ignition/versions.js';
import { InternalSpecVersion } from '../ignition/versions.js';
import type { Result } from '../lib/result.js';
import { err, ok } from '../lib/result.js';
import type { ServingInputs } from './config-source.js';
import { machineConfigJson } from './machine-config-json.js';

/** Paths of the files the server adds (upstream constants). */
const ServedPath = {
  kubeletCa: '/etc/kubernetes/kubelet-ca.crt',
  cloudProviderCa: '/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem',
  nodeAnnotations: '/etc/machine-config-daemon/node-annotations.json',
  kubeconfig: '/etc/kubernetes/kubeconfig',
  initialContent: '/etc/mcs-machine-config-content.json',
  encapsulated: '/etc/ignition-machine-config-encapsulated.json',
} as const;

export type ServeError =
  | { readonly kind: 'Parse'; readonly error: McoParseError }
  | { readonly kind: 'KernelArguments'; readonly version: SpecVersion }
  | { readonly kind: 'Convert'; readonly error: TranslateDownError };

export function describeServeError(e: ServeError): string {
  switch (e.kind) {
    case 'Parse':
      return `parsing Ignition config failed with error: ${describeMcoParseError(e.error)}`;
    case 'KernelArguments':
      return `failed to migrate kernel args can't serve version ${e.version} with ignition KernelArguments.ShouldNotExist populated`;
    case 'Convert':
      return `couldn't convert config: ${describeTranslateDownError(e.error)}`;
  }
}

const SpecsWithoutKernelArguments: readonly SpecVersion[] = ['2.2.0', '3.0.0', '3.1.0', '3.2.0'];

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** `{path, overwrite: true, mode: 420, contents: {source: "data:,…"}}`, as upstream appends. */
function appendedFile(path: string, contents: Uint8Array): IgnitionFile {
  return { overwrite: true, path, contents: { source: encodeDataUrl(contents) }, mode: 420 };
}

function append(config: IgnitionConfig, file: IgnitionFile): void {
  config.storage ??= {};
  (config.storage.files ??= []).push(file);
}

/** Replaces the source of an existing entry if there is data, else appends it if there is data. */
function refreshCaFile(config: IgnitionConfig, path: string, data: Uint8Array): void {
  const existing = config.storage?.files?.find((f) => f.path === path);
  if (existing !== undefined) {
    if (data.length > 0) existing.contents = { ...existing.contents, source: encodeDataUrl(data) };
    return;
  }
  if (data.length > 0) append(config, appendedFile(path, data));
}

/** A ControllerConfig `[]byte` field: base64 on the wire. */
function bytesField(value: string | null | undefined): Uint8Array {
  return value == null || value === '' ? new Uint8Array() : Buffer.from(value, 'base64');
}

/** `{…/currentConfig, …/desiredConfig, …/firstPivotConfig, …/state: Done}`, keys sorted. */
function nodeAnnotationsJson(configName: string): string {
  const annotations: Record<string, string> = {
    [Annotation.currentConfig]: configName,
    [Annotation.desiredConfig]: configName,
    [Annotation.firstPivotConfig]: configName,
    [Annotation.state]: DaemonState.Done,
  };
  const keys = Object.keys(annotations).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(annotations[k])}`).join(',')}}`;
}

/**
 * The spec of the empty Ignition config inside the encapsulated MachineConfig: 2.2.0 for a spec 2
 * client of the cluster server, otherwise the internal spec (bootstrap mode always), as upstream's
 * ctrlcommon.NewIgnConfig writes it.
 */
function encapsulatedVersion(inputs: ServingInputs, version: SpecVersion): string {
  return inputs.mode === 'cluster' && version === '2.2.0' ? '2.2.0' : InternalSpecVersion;
}

function withKernelArguments(mc: MachineConfig, kargs: readonly string[]): MachineConfig {
  if (kargs.length === 0) return mc;
  const spec = mc.spec ?? {};
  return { ...mc, spec: { ...spec, kernelArguments: [...(spec.kernelArguments ?? []), ...kargs] } };
}

/** The served Ignition config's bytes (as text) for `inputs` in spec `version`. */
export function assembleServedConfig(
  inputs: ServingInputs,
  version: SpecVersion,
): Result<string, ServeError> {
  let mc = inputs.machineConfig;
  const parsed = parseAndConvertConfig(mc.spec?.config ?? new Uint8Array());
  if (!parsed.ok) return err({ kind: 'Parse', error: parsed.error });
  const config = structuredClone(parsed.value);

  if (SpecsWithoutKernelArguments.includes(version)) {
    if ((config.kernelArguments?.shouldNotExist ?? []).length > 0)
      return err({ kind: 'KernelArguments', version });
    mc = withKernelArguments(mc, config.kernelArguments?.shouldExist ?? []);
    delete config.kernelArguments;
  }

  const cc = inputs.controllerConfig.spec;
  refreshCaFile(config, ServedPath.kubeletCa, bytesField(cc.kubeAPIServerServingCAData));
  refreshCaFile(config, ServedPath.cloudProviderCa, bytesField(cc.cloudProviderCAData));

  const name = mc.metadata.name ?? '';
  append(config, appendedFile(ServedPath.nodeAnnotations, utf8(nodeAnnotationsJson(name))));
  if (inputs.kubeconfig !== undefined)
    append(config, appendedFile(ServedPath.kubeconfig, inputs.kubeconfig));
  append(config, appendedFile(ServedPath.initialContent, utf8(machineConfigJson(mc, '    '))));
  for (const extra of inputs.extraFiles ?? [])
    append(config, appendedFile(extra.path, extra.contents));
  const encapsulated: MachineConfig = {
    ...mc,
    spec: { ...mc.spec, config: { ignition: { version: encapsulatedVersion(inputs, version) } } },
  };
  append(config, appendedFile(ServedPath.encapsulated, utf8(machineConfigJson(encapsulated))));

  const converted = translateDown(config, version);
  if (!converted.ok) return err({ kind: 'Convert', error: converted.error });
  return ok(serializeIgnition(converted.value.config));
}

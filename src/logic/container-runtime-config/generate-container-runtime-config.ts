/**
 * The Ignition a ContainerRuntimeConfig becomes (upstream createCRIODropinFiles and the storage
 * config update, docs/reference/api.md §2.6): one CRI-O TOML drop-in per set field under
 * `/etc/crio/crio.conf.d/01-ctrcfg-<field>`, and `/etc/containers/storage.conf` when the overlay
 * size or additional image/layer stores are set. Files sorted by path. Pure.
 */
import type { ContainerRuntimeConfig } from '../../api/machineconfiguration/v1/container-runtime-config.js';
import { ignFile, type IgnitionFileOut } from '../kubelet-config/generate-kubelet-config.js';
import { quantityValue } from './quantity.js';
import { GeneratedSpecVersion } from '../../ignition/versions.js';

const CrioDropInDir = '/etc/crio/crio.conf.d';
const StorageConfPath = '/etc/containers/storage.conf';

/** TOML basic string: double quotes with backslash escapes. */
function tomlString(s: string): string {
  return JSON.stringify(s);
}

function tomlArray(values: readonly string[]): string {
  return `[${values.map(tomlString).join(', ')}]`;
}

/** A `[crio] / [crio.<table>]` drop-in with one key, indented as BurntSushi/toml writes it. */
function crioDropIn(table: string, key: string, value: string): string {
  return `[crio]\n  [crio.${table}]\n    ${key} = ${value}\n`;
}

function storageConf(c: ContainerRuntimeConfig['spec']['containerRuntimeConfig']): string {
  const lines = [
    '[storage]',
    '  driver = "overlay"',
    '  runroot = "/var/run/containers/storage"',
    '  graphroot = "/var/lib/containers/storage"',
    '  [storage.options]',
    `    additionalimagestores = ${tomlArray((c.additionalImageStores ?? []).map((s) => s.path))}`,
  ];
  if (c.additionalLayerStores !== undefined)
    lines.push(
      `    additionallayerstores = ${tomlArray(c.additionalLayerStores.map((s) => s.path))}`,
    );
  if (c.overlaySize !== undefined) lines.push(`    size = ${tomlString(String(c.overlaySize))}`);
  return `${lines.join('\n')}\n`;
}

export function generateContainerRuntimeIgnition(
  crc: ContainerRuntimeConfig,
): Record<string, unknown> {
  const c = crc.spec.containerRuntimeConfig;
  const files: IgnitionFileOut[] = [];
  const dropIn = (field: string, table: string, key: string, value: string): void => {
    files.push(ignFile(`${CrioDropInDir}/01-ctrcfg-${field}`, crioDropIn(table, key, value)));
  };
  if (c.logLevel !== undefined && c.logLevel !== '')
    dropIn('logLevel', 'runtime', 'log_level', tomlString(c.logLevel));
  if (c.pidsLimit !== undefined && c.pidsLimit !== 0)
    dropIn('pidsLimit', 'runtime', 'pids_limit', String(c.pidsLimit));
  const logSize = c.logSizeMax === undefined ? 0 : (quantityValue(c.logSizeMax) ?? 0);
  if (logSize > 0) dropIn('logSizeMax', 'runtime', 'log_size_max', String(logSize));
  if (c.defaultRuntime !== undefined && c.defaultRuntime !== '')
    dropIn('defaultRuntime', 'runtime', 'default_runtime', tomlString(c.defaultRuntime));
  if (c.additionalArtifactStores !== undefined)
    dropIn(
      'additionalArtifactStores',
      'runtime',
      'additional_artifact_stores',
      tomlArray(c.additionalArtifactStores.map((s) => s.path)),
    );
  if (
    c.overlaySize !== undefined ||
    c.additionalImageStores !== undefined ||
    c.additionalLayerStores !== undefined
  )
    files.push(ignFile(StorageConfPath, storageConf(c)));
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ignition: { version: GeneratedSpecVersion }, storage: { files } };
}

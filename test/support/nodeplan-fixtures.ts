/**
 * Test builders for the node plan: configs made the way upstream's tests make them
 * (helpers.NewMachineConfig, ctrlcommon.NewIgnFile), parsed through the real Ignition parser.
 */
import type {
  MachineConfig,
  MachineConfigSpec,
} from '../../src/api/machineconfiguration/v1/machine-config.js';
import { encodeDataUrl } from '../../src/ignition/data-url.js';
import type {
  IgnitionConfig,
  IgnitionFile,
  IgnitionUnit,
  PasswdUser,
} from '../../src/ignition/types.js';
import { parseNodeConfig, type NodeConfig } from '../../src/logic/nodeplan/node-config.js';

/** ctrlcommon.NewIgnFile: mode 0644, compression "", contents as a data URL. */
export function ignFile(path: string, contents: string | Uint8Array, mode = 0o644): IgnitionFile {
  const bytes = typeof contents === 'string' ? new TextEncoder().encode(contents) : contents;
  return { path, mode, contents: { source: encodeDataUrl(bytes), compression: '' } };
}

export interface ConfigParts {
  readonly files?: readonly IgnitionFile[];
  readonly units?: readonly IgnitionUnit[];
  readonly users?: readonly PasswdUser[];
}

export function ignition(parts: ConfigParts = {}): IgnitionConfig {
  return {
    ignition: { version: '3.5.0' },
    ...(parts.users === undefined ? {} : { passwd: { users: [...parts.users] } }),
    ...(parts.files === undefined ? {} : { storage: { files: [...parts.files] } }),
    ...(parts.units === undefined ? {} : { systemd: { units: [...parts.units] } }),
  };
}

export function machineConfig(
  name: string,
  parts: ConfigParts = {},
  spec: Omit<MachineConfigSpec, 'config'> = {},
): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name },
    spec: { ...spec, config: ignition(parts) as unknown as Record<string, unknown> },
  };
}

/** A MachineConfig parsed into a NodeConfig; throws on a config the parser rejects. */
export function nodeConfig(
  name: string,
  parts: ConfigParts = {},
  spec: Omit<MachineConfigSpec, 'config'> = {},
): NodeConfig {
  const r = parseNodeConfig(machineConfig(name, parts, spec));
  if (!r.ok) throw new Error(`fixture ${name} does not parse: ${JSON.stringify(r.error)}`);
  return r.value;
}

export function coreUser(...keys: string[]): PasswdUser {
  return { name: 'core', sshAuthorizedKeys: keys };
}

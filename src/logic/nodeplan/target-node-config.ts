/**
 * The config a node is asked to move to, read as the daemon must, and parsed once: first as
 * upstream parses it (`parsing new Ignition config failed: …` on failure), then held to
 * everything admission holds a MachineConfig to (kernel type, file modes, extensions, unit and
 * drop-in names). A real API server stores whatever it is given, so what the box's admission
 * refuses the daemon refuses too, before anything is written.
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { convertParsedConfig } from '../../ignition/mco-parse.js';
import { parseIgnition } from '../../ignition/parse.js';
import { err, ok, type Result } from '../../lib/result.js';
import {
  describeMachineConfigValidationError,
  validateParsedMachineConfig,
  type MachineConfigValidationError,
} from '../render/validate-machine-config.js';
import {
  describeNodeConfigError,
  emptyIgnition,
  type NodeConfig,
  type NodeConfigError,
} from './node-config.js';

export type TargetConfigError =
  | { readonly kind: 'Parse'; readonly error: NodeConfigError }
  | {
      readonly kind: 'Refused';
      readonly config: string;
      readonly error: MachineConfigValidationError;
    };

/** The reason a node gives for refusing a config that admission would have refused. */
function describeRefusedConfig(name: string, detail: string): string {
  return `refusing to apply config ${name}: ${detail}`;
}

export function describeTargetConfigError(e: TargetConfigError): string {
  return e.kind === 'Parse'
    ? describeNodeConfigError(e.error)
    : describeRefusedConfig(e.config, describeMachineConfigValidationError(e.error));
}

export function parseTargetNodeConfig(mc: MachineConfig): Result<NodeConfig, TargetConfigError> {
  const name = mc.metadata.name ?? '';
  const spec = mc.spec ?? {};
  const parsed = parseIgnition(spec.config ?? emptyIgnition());
  if (!parsed.ok)
    return err({
      kind: 'Parse',
      error: { side: 'new', config: name, error: { kind: 'ParseFailed', error: parsed.error } },
    });
  const ignition = convertParsedConfig(parsed.value);
  if (!ignition.ok)
    return err({ kind: 'Parse', error: { side: 'new', config: name, error: ignition.error } });
  // a config-less spec is checked for its kernel type only, as admission does
  const checked =
    spec.config === undefined || spec.config === null
      ? validateParsedMachineConfig({ ...spec, extensions: [] }, parsed.value)
      : validateParsedMachineConfig(spec, parsed.value);
  if (!checked.ok) return err({ kind: 'Refused', config: name, error: checked.error });
  return ok({
    name,
    osImageURL: spec.osImageURL ?? '',
    kernelArguments: spec.kernelArguments ?? [],
    extensions: spec.extensions ?? [],
    extensionsImage: spec.baseOSExtensionsContainerImage ?? '',
    fips: spec.fips === true,
    kernelType: spec.kernelType ?? '',
    ignition: ignition.value,
  });
}

/**
 * The config a node is asked to move to, read as the daemon must: parsed as upstream parses it
 * (`parsing new Ignition config failed: …` on failure), then held to everything admission holds a
 * MachineConfig to (validateMachineConfig: kernel type, file modes, extensions, unit and drop-in
 * names). A real API server stores whatever it is given, so what the box's admission refuses the
 * daemon refuses too, before anything is written: the node goes Degraded with the reason.
 */
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import {
  describeNodeConfigError,
  parseNodeConfig,
  type NodeConfig,
} from '../logic/nodeplan/node-config.js';
import {
  describeMachineConfigValidationError,
  validateMachineConfig,
} from '../logic/render/validate-machine-config.js';
import { DaemonError } from './daemon-errors.js';

/** The reason a node gives for refusing a config that admission would have refused. */
export function describeRefusedConfig(name: string, detail: string): string {
  return `refusing to apply config ${name}: ${detail}`;
}

export function parseTargetConfig(mc: MachineConfig): NodeConfig {
  const parsed = parseNodeConfig(mc, 'new');
  if (!parsed.ok) throw DaemonError.degraded(describeNodeConfigError(parsed.error));
  const valid = validateMachineConfig(mc.spec);
  if (!valid.ok)
    throw DaemonError.degraded(
      describeRefusedConfig(parsed.value.name, describeMachineConfigValidationError(valid.error)),
    );
  return parsed.value;
}

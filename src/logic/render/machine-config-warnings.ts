/**
 * What is worth telling the writer of a MachineConfig that the MCO accepts all the same: Ignition's
 * non-fatal findings (`Unused key filez` for a typo, setuid bits in an old spec, an enabled unit
 * without `[Install]`), which `ValidateMachineConfig` ignores, and a config whose labels no
 * MachineConfigPool selects, which upstream only logs. A typo in a config is otherwise silent: the
 * key is dropped and the file never appears. The API server returns these as `Warning` headers, the
 * render controller records them as Warning events (docs/render.md).
 */
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { parseIgnition } from '../../ignition/parse.js';
import { EntryKind, type ConfigPath } from '../../ignition/report.js';
import {
  describePoolsForConfigError,
  poolsForMachineConfig,
} from '../pools/pools-for-machine-config.js';

/** Event reasons (ours: upstream raises no event for either). */
export const MachineConfigWarningReason = {
  ignition: 'IgnitionValidationWarning',
  noPool: 'NoMatchingPool',
} as const;

/** At most this many Ignition findings are told, the last one saying how many more there are. */
const MaxIgnitionWarnings = 10;

/** `spec.config.storage.files[0].mode`, as field.Path prints the path of a finding. */
function configField(path: ConfigPath): string {
  let out = 'spec.config';
  for (const segment of path)
    out += typeof segment === 'number' ? `[${String(segment)}]` : `.${segment}`;
  return out;
}

/**
 * Ignition's warnings about `spec.config`, as `<field>: <message>` (the shape of the API server's
 * deprecation warnings). None when there is no config or it does not parse: admission refuses
 * that with its errors.
 */
export function ignitionWarnings(mc: Pick<MachineConfig, 'spec'>): string[] {
  const config = mc.spec?.config;
  if (config === undefined || config === null) return [];
  const parsed = parseIgnition(config, { shareInput: true });
  if (!parsed.ok) return [];
  const texts = parsed.value.report.entries
    .filter((e) => e.kind === EntryKind.Warning)
    .map((e) => `${configField(e.path)}: ${e.message}`);
  if (texts.length <= MaxIgnitionWarnings) return texts;
  const more = texts.length - (MaxIgnitionWarnings - 1);
  return [
    ...texts.slice(0, MaxIgnitionWarnings - 1),
    `spec.config: ${String(more)} more Ignition warnings`,
  ];
}

/**
 * Upstream's text for a config that reaches no pool (no labels, or labels no pool's selector
 * matches); undefined when a pool renders it. A config a pool controls (a rendered config) always
 * reaches it.
 */
export function noPoolWarning(
  mc: MachineConfig,
  pools: readonly MachineConfigPool[],
): string | undefined {
  const found = poolsForMachineConfig(mc, pools);
  return found.ok ? undefined : describePoolsForConfigError(found.error);
}

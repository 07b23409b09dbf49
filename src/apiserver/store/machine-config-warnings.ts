/**
 * The warnings a MachineConfig write answers with (`Warning: 299 - "…"`, which kubectl prints as
 * `Warning: …`): Ignition's non-fatal findings in `spec.config`, and labels that no
 * MachineConfigPool selects, read from the stored pools at the time of the write. Without the
 * MachineConfigPool type registered there is no pool to compare with, and nothing is said about it.
 */
import type { MachineConfigPool } from '../../api/machineconfiguration/v1/machine-config-pool.js';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { ignitionWarnings, noPoolWarning } from '../../logic/render/machine-config-warnings.js';
import type { KubeObject } from '../resource-store.js';
import type { WarningReads } from './kind-strategy.js';

const Group = 'machineconfiguration.openshift.io';

export async function machineConfigWarnings(
  reads: WarningReads,
  obj: KubeObject,
): Promise<string[]> {
  const mc = obj as unknown as MachineConfig;
  const out = ignitionWarnings(mc);
  const pools = await reads.listKind(Group, 'MachineConfigPool');
  if (pools === undefined) return out;
  const noPool = noPoolWarning(mc, pools as unknown as MachineConfigPool[]);
  return noPool === undefined ? out : [...out, noPool];
}

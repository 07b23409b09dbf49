/**
 * `/etc/machine-config-daemon/currentconfig`: the MachineConfig the node is on, as the daemon
 * last stored it (docs/reference/daemon.md §7.2 step 12). It wins over the node's currentConfig annotation
 * when their names differ (an etcd restore can roll the annotation back, not the disk).
 */
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { NodeFiles } from '../ports/host.js';
import { CurrentConfigPath } from './daemon-paths.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export async function readCurrentConfig(files: NodeFiles): Promise<MachineConfig | undefined> {
  const bytes = await files.read(CurrentConfigPath);
  if (bytes === undefined) return undefined;
  try {
    const mc = JSON.parse(decoder.decode(bytes)) as MachineConfig;
    return typeof mc.metadata.name === 'string' ? mc : undefined;
  } catch {
    return undefined;
  }
}

export async function writeCurrentConfig(files: NodeFiles, mc: MachineConfig): Promise<void> {
  await files.writeAtomic(CurrentConfigPath, encoder.encode(JSON.stringify(mc)), { mode: 0o644 });
}

export async function removeCurrentConfig(files: NodeFiles): Promise<void> {
  await files.remove(CurrentConfigPath);
}

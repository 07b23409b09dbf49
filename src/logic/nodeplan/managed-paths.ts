/**
 * The paths a config writes on the node: its files, its unit files (with contents or masked) and
 * its dropins. The update journal keeps the prior state of the paths only the new config
 * manages, and the sweep after a crash looks for temp files beside these paths only.
 */
import type { IgnitionConfig } from '../../ignition/types.js';
import { dropinPath, unitPath } from './node-paths.js';

export function managedPaths(ign: IgnitionConfig): Set<string> {
  const out = new Set<string>((ign.storage?.files ?? []).map((f) => f.path));
  for (const u of ign.systemd?.units ?? []) {
    if ((u.contents !== undefined && u.contents !== '') || u.mask !== undefined)
      out.add(unitPath(u.name));
    for (const d of u.dropins ?? []) out.add(dropinPath(u.name, d.name));
  }
  return out;
}

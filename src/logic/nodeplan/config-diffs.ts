/**
 * What changed between two Ignition configs, by file path and unit name (upstream
 * CalculateConfigFileDiffs and GetChangedConfigUnitsByType). The node disruption policies are
 * looked up by these paths and names, and only added or changed units are rewritten.
 */
import type { IgnitionConfig, IgnitionFile, IgnitionUnit } from '../../ignition/types.js';
import { deepEqual } from './deep-equal.js';

function byKey<T>(items: readonly T[], key: (t: T) => string): Map<string, T> {
  const m = new Map<string, T>();
  // a later entry with the same key wins, as with upstream's map
  for (const item of items) m.set(key(item), item);
  return m;
}

const filesOf = (ign: IgnitionConfig): readonly IgnitionFile[] => ign.storage?.files ?? [];
const unitsOf = (ign: IgnitionConfig): readonly IgnitionUnit[] => ign.systemd?.units ?? [];

/**
 * Paths of files removed, then added or changed (deep equality of the whole file entry). Upstream
 * walks Go maps, so its order is random; ours is removed-in-old-order, then new-in-new-order.
 */
export function changedFilePaths(
  oldIgn: IgnitionConfig,
  newIgn: IgnitionConfig,
): readonly string[] {
  const oldFiles = byKey(filesOf(oldIgn), (f) => f.path);
  const newFiles = byKey(filesOf(newIgn), (f) => f.path);
  const removed = [...oldFiles.keys()].filter((p) => !newFiles.has(p));
  const addedOrChanged = [...newFiles].flatMap(([path, file]) => {
    const before = oldFiles.get(path);
    return before === undefined || !deepEqual(before, file) ? [path] : [];
  });
  return [...removed, ...addedOrChanged];
}

export interface UnitChanges {
  readonly added: readonly IgnitionUnit[];
  readonly updated: readonly IgnitionUnit[];
  readonly removed: readonly IgnitionUnit[];
}

/** Units by name: added (new only), updated (both, not deep-equal), removed (old only). */
export function changedUnits(oldIgn: IgnitionConfig, newIgn: IgnitionConfig): UnitChanges {
  const oldUnits = byKey(unitsOf(oldIgn), (u) => u.name);
  const newUnits = byKey(unitsOf(newIgn), (u) => u.name);
  const added: IgnitionUnit[] = [];
  const updated: IgnitionUnit[] = [];
  for (const [name, unit] of newUnits) {
    const before = oldUnits.get(name);
    if (before === undefined) added.push(unit);
    else if (!deepEqual(before, unit)) updated.push(unit);
  }
  const removed = [...oldUnits].filter(([name]) => !newUnits.has(name)).map(([, u]) => u);
  return { added, updated, removed };
}

/** The units update() writes: added, then updated (slices.Concat(Added, Updated)). */
export function addedOrChangedUnits(changes: UnitChanges): readonly IgnitionUnit[] {
  return [...changes.added, ...changes.updated];
}

/** Names of every unit changed in any way, as the node disruption policies see them. */
export function changedUnitNames(changes: UnitChanges): readonly string[] {
  return [...changes.added, ...changes.updated, ...changes.removed].map((u) => u.name);
}

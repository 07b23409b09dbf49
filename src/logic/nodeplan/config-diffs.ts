/**
 * What changed between two Ignition configs, by file path and unit name (upstream
 * CalculateConfigFileDiffs and GetChangedConfigUnitsByType). The node disruption policies are
 * looked up by these paths and names, and only added or changed units are rewritten.
 */
import type { IgnitionConfig, IgnitionFile, IgnitionUnit } from '../../ignition/types.js';
import { jsonEqual } from '../../lib/json-equal.js';

function byKey<T>(items: readonly T[], key: (t: T) => string): Map<string, T> {
  const m = new Map<string, T>();
  // a later entry with the same key wins, as with upstream's map
  for (const item of items) m.set(key(item), item);
  return m;
}

const filesOf = (ign: IgnitionConfig): readonly IgnitionFile[] => ign.storage?.files ?? [];
const unitsOf = (ign: IgnitionConfig): readonly IgnitionUnit[] => ign.systemd?.units ?? [];

/** Code-unit order: the fixed order of changed paths and units (upstream's is Go map order). */
const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Paths of files removed, then added or changed (deep equality of the whole file entry), each
 * group sorted by path. Upstream walks Go maps, so its order is random; a fixed one makes the
 * order of the post-config actions, which follows it, the same on every node and in every preview.
 */
export function changedFilePaths(
  oldIgn: IgnitionConfig,
  newIgn: IgnitionConfig,
): readonly string[] {
  const oldFiles = byKey(filesOf(oldIgn), (f) => f.path);
  const newFiles = byKey(filesOf(newIgn), (f) => f.path);
  const removed = [...oldFiles.keys()].filter((p) => !newFiles.has(p)).sort(byString);
  const addedOrChanged = [...newFiles]
    .flatMap(([path, file]) => {
      const before = oldFiles.get(path);
      return before === undefined || !jsonEqual(before, file) ? [path] : [];
    })
    .sort(byString);
  return [...removed, ...addedOrChanged];
}

export interface UnitChanges {
  readonly added: readonly IgnitionUnit[];
  readonly updated: readonly IgnitionUnit[];
  readonly removed: readonly IgnitionUnit[];
}

/**
 * Units by name: added (new only), updated (both, not deep-equal), removed (old only), each
 * sorted by name (upstream: Go map order).
 */
export function changedUnits(oldIgn: IgnitionConfig, newIgn: IgnitionConfig): UnitChanges {
  const oldUnits = byKey(unitsOf(oldIgn), (u) => u.name);
  const newUnits = byKey(unitsOf(newIgn), (u) => u.name);
  const added: IgnitionUnit[] = [];
  const updated: IgnitionUnit[] = [];
  for (const [name, unit] of newUnits) {
    const before = oldUnits.get(name);
    if (before === undefined) added.push(unit);
    else if (!jsonEqual(before, unit)) updated.push(unit);
  }
  const removed = [...oldUnits].filter(([name]) => !newUnits.has(name)).map(([, u]) => u);
  const byName = (a: IgnitionUnit, b: IgnitionUnit): number => byString(a.name, b.name);
  return {
    added: added.sort(byName),
    updated: updated.sort(byName),
    removed: removed.sort(byName),
  };
}

/** The units update() writes: added, then updated (slices.Concat(Added, Updated)). */
export function addedOrChangedUnits(changes: UnitChanges): readonly IgnitionUnit[] {
  return [...changes.added, ...changes.updated];
}

/** Names of every unit changed in any way, as the node disruption policies see them. */
export function changedUnitNames(changes: UnitChanges): readonly string[] {
  return [...changes.added, ...changes.updated, ...changes.removed].map((u) => u.name);
}

/**
 * The sources of a rendered config as they were at render time (the render controller writes
 * them on it), and how two rendered configs' sources differ: the MachineConfigs an update of a
 * node from one to the other is due to.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import {
  AuditAnnotation,
  type ConfigChange,
  type SourceStamp,
} from '../../api/machineconfiguration/v1/update-audit.js';
import { changeStampOf } from './change-stamp.js';

function specHash(mc: MachineConfig): string {
  return createHash('sha256')
    .update(stringify(mc.spec ?? {}) ?? '')
    .digest('hex')
    .slice(0, 16);
}

export function sourceStamps(sources: readonly MachineConfig[]): SourceStamp[] {
  return sources
    .map((mc): SourceStamp => {
      const changed = changeStampOf(mc);
      return {
        name: mc.metadata.name ?? '',
        hash: specHash(mc),
        ...(changed === undefined ? {} : { changed }),
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The stamps a rendered config carries; undefined when it has none (rendered before the audit). */
export function readSourceStamps(rendered: MachineConfig | undefined): SourceStamp[] | undefined {
  const text = rendered?.metadata.annotations?.[AuditAnnotation.sources];
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return undefined;
    return parsed.filter(
      (s): s is SourceStamp =>
        typeof s === 'object' &&
        s !== null &&
        typeof (s as SourceStamp).name === 'string' &&
        typeof (s as SourceStamp).hash === 'string',
    );
  } catch {
    return undefined;
  }
}

/** Sources added, removed or changed from `from` to `to`, by name. */
export function configChanges(
  from: readonly SourceStamp[],
  to: readonly SourceStamp[],
): ConfigChange[] {
  const before = new Map(from.map((s) => [s.name, s]));
  const after = new Map(to.map((s) => [s.name, s]));
  const out: ConfigChange[] = [];
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const name of names) {
    const a = before.get(name);
    const b = after.get(name);
    const change =
      a === undefined ? 'added' : b === undefined ? 'removed' : a.hash !== b.hash ? 'changed' : '';
    if (change === '') continue;
    const stamp = (b ?? a)?.changed;
    out.push({ name, change, ...(stamp === undefined ? {} : { changed: stamp }) });
  }
  return out;
}

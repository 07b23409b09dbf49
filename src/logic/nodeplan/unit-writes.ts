/**
 * The systemd unit writes of an update (upstream writeUnits/writeUnit/writeDropins,
 * docs/reference/daemon.md §7.6). Only added or changed units are written, all of the new config's units
 * when the forcefile exists (drift recovery). Each planned unit says what to do with its dropins,
 * its unit file, and its enablement; the caller runs it against the Host in that order.
 */
import type { IgnitionConfig, IgnitionUnit } from '../../ignition/types.js';
import { addedOrChangedUnits, changedUnits } from './config-diffs.js';
import { DefaultFileMode } from './file-writes.js';
import { DevNull, dropinPath, unitPath, withUsrPath } from './node-paths.js';

type DropinStep =
  /** Write (0644). On CoreOS, first back up `usrPath` as the orig file when it exists. */
  | {
      readonly kind: 'write';
      readonly path: string;
      readonly contents: string;
      readonly usrPath: string;
    }
  /** An empty dropin: remove it if it exists. */
  | { readonly kind: 'remove'; readonly path: string };

type UnitFileStep =
  /** Remove whatever is at `path`, then symlink it to `target` (/dev/null). */
  | { readonly kind: 'mask'; readonly path: string; readonly target: string }
  /**
   * Write the unit (0644). Before writing: if `systemctl is-enabled` reports "enabled", disable it
   * (its WantedBy= may change); on CoreOS back up `usrPath` as the orig file when it exists.
   */
  | {
      readonly kind: 'write';
      readonly path: string;
      readonly contents: string;
      readonly mode: number;
      readonly usrPath: string;
    }
  /** `mask: false` without contents: remove a previous mask at `path`. */
  | { readonly kind: 'unmask'; readonly path: string }
  /** No contents: the unit file is not touched. */
  | { readonly kind: 'none' };

type Enablement = 'enable' | 'disable' | 'preset';

export interface PlannedUnit {
  readonly name: string;
  readonly dropins: readonly DropinStep[];
  readonly file: UnitFileStep;
  /** `enabled: true|false` → enable/disable (batched); unset → `systemctl preset` (failures ignored). */
  readonly enablement: Enablement;
  readonly hasContents: boolean;
}

function planDropins(u: IgnitionUnit): readonly DropinStep[] {
  return (u.dropins ?? []).map((d): DropinStep => {
    const path = dropinPath(u.name, d.name);
    const contents = d.contents ?? '';
    return contents === ''
      ? { kind: 'remove', path }
      : { kind: 'write', path, contents, usrPath: withUsrPath(path) };
  });
}

function planUnitFile(u: IgnitionUnit): UnitFileStep {
  const path = unitPath(u.name);
  if (u.mask === true) return { kind: 'mask', path, target: DevNull };
  if (u.contents !== undefined && u.contents !== '')
    return {
      kind: 'write',
      path,
      contents: u.contents,
      mode: DefaultFileMode,
      usrPath: withUsrPath(path),
    };
  if (u.mask === false) return { kind: 'unmask', path };
  return { kind: 'none' };
}

/** The plan for a given list of units (writeUnits). */
export function planUnits(units: readonly IgnitionUnit[]): readonly PlannedUnit[] {
  return units.map((u) => ({
    name: u.name,
    dropins: planDropins(u),
    file: planUnitFile(u),
    enablement: u.enabled === undefined ? 'preset' : u.enabled ? 'enable' : 'disable',
    hasContents: u.contents !== undefined && u.contents !== '',
  }));
}

export interface UnitWriteOptions {
  /** The forcefile existed when the update started: rewrite every unit (OCPBUGS-74692). */
  readonly forceFile: boolean;
}

/** The units updateFiles writes for an update from `oldIgn` to `newIgn`. */
export function planUnitWrites(
  oldIgn: IgnitionConfig,
  newIgn: IgnitionConfig,
  options: UnitWriteOptions,
): readonly PlannedUnit[] {
  const units = options.forceFile
    ? (newIgn.systemd?.units ?? [])
    : addedOrChangedUnits(changedUnits(oldIgn, newIgn));
  return planUnits(units);
}

export interface EnablementCommands {
  /** One `systemctl enable …` for all of these (if non-empty), then one `systemctl disable …`. */
  readonly enable: readonly string[];
  readonly disable: readonly string[];
  /** One `systemctl preset <unit>` each; a failure is logged, not fatal. */
  readonly preset: readonly string[];
  /** enable/disable requests dropped: no contents and systemd does not know the unit (OCPBUGS-56648). */
  readonly skipped: readonly { readonly name: string; readonly action: 'enable' | 'disable' }[];
}

/**
 * Which enable/disable/preset commands to run, given the units systemd knows (its unit list).
 * A unit is only enabled or disabled if it has contents or systemd already knows it.
 */
export function enablementCommands(
  plan: readonly PlannedUnit[],
  knownUnits: ReadonlySet<string>,
): EnablementCommands {
  const enable: string[] = [];
  const disable: string[] = [];
  const preset: string[] = [];
  const skipped: { name: string; action: 'enable' | 'disable' }[] = [];
  for (const u of plan) {
    if (u.enablement === 'preset') {
      preset.push(u.name);
    } else if (u.hasContents || knownUnits.has(u.name)) {
      (u.enablement === 'enable' ? enable : disable).push(u.name);
    } else {
      skipped.push({ name: u.name, action: u.enablement });
    }
  }
  return { enable, disable, preset, skipped };
}

/**
 * Unit and drop-in names as systemd takes them, checked before a config is stored, rendered or
 * applied. A name becomes a path on the node (`/etc/systemd/system/<unit>`,
 * `/etc/systemd/system/<unit>.d/<dropin>`), and Ignition checks only the suffixes (`invalid
 * systemd unit extension`, `invalid systemd drop-in extension`), so without these checks
 * `a/../../x.service` or a drop-in `../../x.conf` would name a file elsewhere.
 *
 * Unit names follow systemd's unit_name_is_valid: not empty, under 256 bytes (UNIT_NAME_MAX), only
 * ASCII letters, digits, `:`, `-`, `_`, `.`, `\` and `@`, not starting with `@`. On top of that no
 * `..` at all, so no name is ever a path step (systemd would take `a..b.service`; nobody needs
 * it). Drop-in names are file names: not empty, no `/`, no NUL, at most 255 bytes (NAME_MAX).
 * Upstream has no message for these; the suffix messages stay Ignition's.
 */

/** systemd's UNIT_NAME_MAX is 256 with the NUL; NAME_MAX is 255. */
const MaxNameBytes = 255;

const UnitNameChars = /^[A-Za-z0-9:\-_.\\@]*$/;

export interface SystemdNameProblem {
  /** Where the name is: `systemd.units[i].name` or `systemd.units[i].dropins[j].name`. */
  readonly path: readonly (string | number)[];
  readonly name: string;
  /** The unit a drop-in belongs to. */
  readonly unit?: string;
  readonly reason: string;
}

const byteLength = (s: string): number => new TextEncoder().encode(s).length;

/** Why `name` is not a unit name systemd would load, or undefined. */
export function unitNameProblem(name: string): string | undefined {
  if (name === '') return 'must not be empty';
  if (name.includes('/')) return 'must not contain "/"';
  if (name.includes('..')) return 'must not contain ".."';
  if (byteLength(name) > MaxNameBytes) return `must be at most ${String(MaxNameBytes)} bytes`;
  if (!UnitNameChars.test(name))
    return 'may only contain ASCII letters, digits, ":", "-", "_", ".", "\\" and "@"';
  if (name.startsWith('@')) return 'must not start with "@"';
  return undefined;
}

/** Why `name` is not a drop-in file name, or undefined. */
export function dropinNameProblem(name: string): string | undefined {
  if (name === '') return 'must not be empty';
  if (name.includes('/')) return 'must not contain "/"';
  if (name.includes('\0')) return 'must not contain NUL';
  if (byteLength(name) > MaxNameBytes) return `must be at most ${String(MaxNameBytes)} bytes`;
  return undefined;
}

export function describeSystemdNameProblem(p: SystemdNameProblem): string {
  return p.unit === undefined
    ? `invalid systemd unit name ${JSON.stringify(p.name)}: ${p.reason}`
    : `invalid systemd drop-in name ${JSON.stringify(p.name)} of unit ${JSON.stringify(p.unit)}: ${p.reason}`;
}

function listAt(value: unknown, key: string): readonly unknown[] {
  if (typeof value !== 'object' || value === null) return [];
  const list = (value as Record<string, unknown>)[key];
  return Array.isArray(list) ? list : [];
}

function nameOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const name = (value as Record<string, unknown>)['name'];
  return typeof name === 'string' ? name : undefined;
}

/**
 * Every unit and drop-in name of an Ignition config (any spec: 2.2 and 3.x name them alike) that
 * is not a name systemd takes, in config order.
 */
export function systemdNameProblems(config: unknown): SystemdNameProblem[] {
  const systemd =
    typeof config === 'object' && config !== null
      ? (config as Record<string, unknown>)['systemd']
      : undefined;
  const out: SystemdNameProblem[] = [];
  listAt(systemd, 'units').forEach((unit, i) => {
    const name = nameOf(unit) ?? '';
    const reason = unitNameProblem(name);
    if (reason !== undefined) out.push({ path: ['systemd', 'units', i, 'name'], name, reason });
    listAt(unit, 'dropins').forEach((dropin, j) => {
      const dropinName = nameOf(dropin) ?? '';
      const why = dropinNameProblem(dropinName);
      if (why !== undefined)
        out.push({
          path: ['systemd', 'units', i, 'dropins', j, 'name'],
          name: dropinName,
          unit: name,
          reason: why,
        });
    });
  });
  return out;
}

/**
 * What changes between two (rendered) MachineConfigs, for the dashboard's diff view: the OS
 * fields, then files, systemd units (with their dropins) and passwd users (SSH keys) side by side with their contents decoded from the data URLs
 * (gunzipped where compressed), as the daemon would write them. Unchanged files and units are only
 * listed by name, so the view stays small for rendered configs with hundreds of template files.
 */
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { IgnitionFile, IgnitionUnit } from '../ignition/types.js';
import { decodeFileContents, describeFileContentsError } from '../logic/nodeplan/file-contents.js';
import {
  describeNodeConfigError,
  parseNodeConfig,
  type NodeConfig,
} from '../logic/nodeplan/node-config.js';
import { err, ok, type Result } from '../lib/result.js';
import { lineDiff, type DiffRow } from './line-diff.js';

type Change = 'added' | 'removed' | 'changed';

interface FieldDiff {
  readonly field: string;
  readonly from: string;
  readonly to: string;
  readonly changed: boolean;
}

interface FileSide {
  /** Octal, e.g. `0644`. */
  readonly mode: string;
  readonly owner: string;
  /** The decoded text, or a note for binary or undecodable contents. */
  readonly contents: string;
}

interface FileDiff {
  readonly path: string;
  readonly change: Change;
  readonly from?: FileSide;
  readonly to?: FileSide;
  readonly rows: readonly DiffRow[];
}

interface UnitDiff {
  readonly name: string;
  readonly change: Change;
  /** `enabled`, `disabled`, `masked` or `unset` on each side ('' when the side lacks the unit). */
  readonly from: string;
  readonly to: string;
  readonly rows: readonly DiffRow[];
}

/** One passwd user: its SSH keys one per line, then whether it has a password (never the hash). */
interface UserDiff {
  readonly name: string;
  readonly change: Change;
  readonly rows: readonly DiffRow[];
}

export interface ConfigDiff {
  readonly from: string;
  readonly to: string;
  readonly fields: readonly FieldDiff[];
  readonly files: readonly FileDiff[];
  readonly units: readonly UnitDiff[];
  readonly users: readonly UserDiff[];
  readonly unchangedFiles: readonly string[];
  readonly unchangedUnits: readonly string[];
}

function octal(mode: number | undefined): string {
  return (mode ?? 0o644).toString(8).padStart(4, '0');
}

function ownerText(f: IgnitionFile): string {
  const who = (o: { id?: number; name?: string } | undefined): string =>
    o?.name ?? (o?.id === undefined ? 'root' : String(o.id));
  return `${who(f.user)}:${who(f.group)}`;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function fileText(f: IgnitionFile): string {
  const bytes = decodeFileContents(f.contents?.source, f.contents?.compression);
  if (!bytes.ok) return `(undecodable: ${describeFileContentsError(bytes.error)})`;
  try {
    return utf8.decode(bytes.value);
  } catch {
    return `(binary, ${bytes.value.length} bytes)`;
  }
}

function fileSide(f: IgnitionFile): FileSide {
  return { mode: octal(f.mode), owner: ownerText(f), contents: fileText(f) };
}

/** Later entries for a path win, as they do when the daemon writes them. */
function byKey<T>(items: readonly T[] | undefined, key: (t: T) => string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items ?? []) map.set(key(item), item);
  return map;
}

function sortedKeys(a: Map<string, unknown>, b: Map<string, unknown>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].sort();
}

function diffFiles(a: NodeConfig, b: NodeConfig): { files: FileDiff[]; unchanged: string[] } {
  const before = byKey(a.ignition.storage?.files, (f) => f.path);
  const after = byKey(b.ignition.storage?.files, (f) => f.path);
  const files: FileDiff[] = [];
  const unchanged: string[] = [];
  for (const path of sortedKeys(before, after)) {
    const x = before.get(path);
    const y = after.get(path);
    const from = x === undefined ? undefined : fileSide(x);
    const to = y === undefined ? undefined : fileSide(y);
    if (from !== undefined && to !== undefined && JSON.stringify(from) === JSON.stringify(to)) {
      unchanged.push(path);
      continue;
    }
    const change: Change = from === undefined ? 'added' : to === undefined ? 'removed' : 'changed';
    files.push({
      path,
      change,
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
      rows: lineDiff(from?.contents ?? '', to?.contents ?? ''),
    });
  }
  return { files, unchanged };
}

function unitState(u: IgnitionUnit | undefined): string {
  if (u === undefined) return '';
  if (u.mask === true) return 'masked';
  if (u.enabled === undefined) return 'unset';
  return u.enabled ? 'enabled' : 'disabled';
}

/** The unit file followed by its dropins, as one text to compare. */
function unitText(u: IgnitionUnit | undefined): string {
  if (u === undefined) return '';
  const withEol = (t: string): string => (t === '' || t.endsWith('\n') ? t : `${t}\n`);
  let text = withEol(u.contents ?? '');
  for (const d of [...(u.dropins ?? [])].sort((p, q) => p.name.localeCompare(q.name)))
    text += `# dropin ${u.name}.d/${d.name}\n${withEol(d.contents ?? '')}`;
  return text;
}

function diffUnits(a: NodeConfig, b: NodeConfig): { units: UnitDiff[]; unchanged: string[] } {
  const before = byKey(a.ignition.systemd?.units, (u) => u.name);
  const after = byKey(b.ignition.systemd?.units, (u) => u.name);
  const units: UnitDiff[] = [];
  const unchanged: string[] = [];
  for (const name of sortedKeys(before, after)) {
    const x = before.get(name);
    const y = after.get(name);
    const left = unitText(x);
    const right = unitText(y);
    if (x !== undefined && y !== undefined && left === right && unitState(x) === unitState(y)) {
      unchanged.push(name);
      continue;
    }
    units.push({
      name,
      change: x === undefined ? 'added' : y === undefined ? 'removed' : 'changed',
      from: unitState(x),
      to: unitState(y),
      rows: lineDiff(left, right),
    });
  }
  return { units, unchanged };
}

type PasswdUser = NonNullable<NonNullable<NodeConfig['ignition']['passwd']>['users']>[number];

/**
 * What the daemon writes for a user (its authorized_keys and its password): keys one per line as
 * they go into the file, the hash only as "set" (the config is readable by anyone who may read
 * MachineConfigs, but the page need not repeat a hash on screens).
 */
function userText(u: PasswdUser | undefined): string {
  if (u === undefined) return '';
  const keys = (u.sshAuthorizedKeys ?? []).map((k) => `${k.trim()}\n`).join('');
  const password =
    u.passwordHash === undefined ? '' : `# password: ${u.passwordHash === '' ? 'empty' : 'set'}\n`;
  return `${keys}${password}`;
}

function diffUsers(a: NodeConfig, b: NodeConfig): UserDiff[] {
  const before = byKey(a.ignition.passwd?.users, (u) => u.name);
  const after = byKey(b.ignition.passwd?.users, (u) => u.name);
  const users: UserDiff[] = [];
  for (const name of sortedKeys(before, after)) {
    const x = before.get(name);
    const y = after.get(name);
    const left = userText(x);
    const right = userText(y);
    const hashChanged = x?.passwordHash !== y?.passwordHash;
    if (x !== undefined && y !== undefined && left === right && !hashChanged) continue;
    users.push({
      name,
      change: x === undefined ? 'added' : y === undefined ? 'removed' : 'changed',
      rows: lineDiff(left, hashChanged && left === right ? `${right}# password changed\n` : right),
    });
  }
  return users;
}

function field(name: string, from: string, to: string): FieldDiff {
  return { field: name, from, to, changed: from !== to };
}

/** The diff `from` → `to`, or the parse failure of either config (upstream's text). */
export function diffMachineConfigs(
  from: MachineConfig,
  to: MachineConfig,
): Result<ConfigDiff, string> {
  const a = parseNodeConfig(from, 'old');
  if (!a.ok) return err(describeNodeConfigError(a.error));
  const b = parseNodeConfig(to, 'new');
  if (!b.ok) return err(describeNodeConfigError(b.error));
  const files = diffFiles(a.value, b.value);
  const units = diffUnits(a.value, b.value);
  return ok({
    from: a.value.name,
    to: b.value.name,
    fields: [
      field('osImageURL', a.value.osImageURL, b.value.osImageURL),
      field(
        'kernelArguments',
        a.value.kernelArguments.join(' '),
        b.value.kernelArguments.join(' '),
      ),
      field('kernelType', a.value.kernelType, b.value.kernelType),
      field('extensions', a.value.extensions.join(' '), b.value.extensions.join(' ')),
      field('fips', String(a.value.fips), String(b.value.fips)),
    ],
    files: files.files,
    units: units.units,
    users: diffUsers(a.value, b.value),
    unchangedFiles: files.unchanged,
    unchangedUnits: units.unchanged,
  });
}

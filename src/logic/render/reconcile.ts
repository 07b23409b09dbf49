/**
 * Reconcilability (upstream IsRenderedConfigReconcilable, docs/reference/render.md §3.6): may a running node
 * move from one config to another without reprovisioning? Disks, filesystems, RAID, directories,
 * new links, non-core users, groups, Ignition kernel arguments, appends and FIPS cannot change on a
 * running machine. The render controller and the daemon both ask this question.
 */
import type { MachineConfig } from '../../api/machineconfiguration/v1/machine-config.js';
import { describeMcoParseError, parseAndConvertConfig } from '../../ignition/mco-parse.js';
import { compactIgnition } from '../../ignition/serialize.js';
import { stringify } from 'safe-stable-stringify';
import { err, ok, type Result } from '../../lib/result.js';
import { InternalSpecVersion } from '../../ignition/versions.js';

/** What a MachineConfig without a config is read as. */
const EMPTY_CONFIG = { ignition: { version: InternalSpecVersion } };

/** MachineConfiguration/cluster `spec.irreconcilableValidationOverrides.storage` values. */
type StorageOverride = 'Disks' | 'FileSystems' | 'Raid';

export interface ReconcileOverrides {
  readonly storage?: readonly StorageOverride[];
}

export type UnreconcilableReason =
  | { readonly kind: 'PasswdGroups' }
  | { readonly kind: 'NonCoreUser' }
  | { readonly kind: 'UserFieldsNotReconcilable' }
  | { readonly kind: 'UserNeedsSshKeys' }
  | {
      readonly kind: 'SectionChanged';
      readonly section: 'kargs' | 'disks' | 'filesystems' | 'raid' | 'directories' | 'links';
    }
  | { readonly kind: 'FileAppend'; readonly path: string }
  | { readonly kind: 'ForceFile' }
  | { readonly kind: 'Fips' };

export type ReconcileError =
  | { readonly kind: 'ParseOld'; readonly config: string; readonly message: string }
  | { readonly kind: 'ParseNew'; readonly config: string; readonly message: string }
  | {
      readonly kind: 'Unreconcilable';
      readonly oldConfig: string;
      readonly newConfig: string;
      readonly reason: UnreconcilableReason;
    };

const ForceFilePath = '/run/machine-config-daemon-force';

export function describeUnreconcilableReason(r: UnreconcilableReason): string {
  switch (r.kind) {
    case 'PasswdGroups':
      return 'invalid passwd change(s): ignition Passwd Groups section contains changes';
    case 'NonCoreUser':
      return 'invalid passwd change(s): ignition passwd user section contains unsupported changes: non-core user';
    case 'UserFieldsNotReconcilable':
      return 'invalid passwd change(s): SSH keys and password hash are not reconcilable';
    case 'UserNeedsSshKeys':
      return 'invalid passwd change(s): ignition passwd user section contains unsupported changes: user must be core and have 1 or more sshKeys';
    case 'SectionChanged':
      return `ignition ${r.section} section contains changes`;
    case 'FileAppend':
      return `ignition file ${r.path} includes append`;
    case 'ForceFile':
      return `cannot create ${ForceFilePath} via Ignition`;
    case 'Fips':
      return 'detected change to FIPS flag; refusing to modify FIPS on a running cluster';
  }
}

export function describeReconcileError(e: ReconcileError): string {
  switch (e.kind) {
    case 'ParseOld':
      return `parsing old Ignition config from machineconfig "${e.config}" failed: ${e.message}`;
    case 'ParseNew':
      return `parsing new Ignition config from machineconfig "${e.config}" failed: ${e.message}`;
    case 'Unreconcilable':
      // Upstream prints the old name first ("new machineconfig <old> ... against <new>"); kept as is.
      return `new machineconfig "${e.oldConfig}" is not reconcilable against "${e.newConfig}": ${describeUnreconcilableReason(e.reason)}`;
  }
}

type Json = Record<string, unknown>;

function section(config: Json, ...keys: string[]): unknown {
  let v: unknown = config;
  for (const k of keys) v = typeof v === 'object' && v !== null ? (v as Json)[k] : undefined;
  return v;
}

function differs(a: unknown, b: unknown): boolean {
  return stringify(a ?? null) !== stringify(b ?? null);
}

function asList(v: unknown): Json[] {
  return Array.isArray(v) ? (v as Json[]) : [];
}

function checkUsers(users: Json[]): UnreconcilableReason | undefined {
  if (users.some((u) => u['name'] !== 'core')) return { kind: 'NonCoreUser' };
  const last = users.at(-1);
  if (last === undefined) return undefined;
  const keys = asList(last['sshAuthorizedKeys']);
  if (last['passwordHash'] === undefined && keys.length === 0) return { kind: 'UserNeedsSshKeys' };
  const others = Object.keys(last).filter(
    (k) => !['name', 'sshAuthorizedKeys', 'passwordHash'].includes(k),
  );
  return others.length > 0 ? { kind: 'UserFieldsNotReconcilable' } : undefined;
}

function checkPasswd(oldIgn: Json, newIgn: Json): UnreconcilableReason | undefined {
  if (!differs(section(oldIgn, 'passwd'), section(newIgn, 'passwd'))) return undefined;
  if (differs(section(oldIgn, 'passwd', 'groups'), section(newIgn, 'passwd', 'groups')))
    return { kind: 'PasswdGroups' };
  return checkUsers(asList(section(newIgn, 'passwd', 'users')));
}

function checkStorage(
  oldIgn: Json,
  newIgn: Json,
  overrides: ReconcileOverrides,
): UnreconcilableReason | undefined {
  const allowed = overrides.storage ?? [];
  const guarded: [StorageOverride, 'disks' | 'filesystems' | 'raid'][] = [
    ['Disks', 'disks'],
    ['FileSystems', 'filesystems'],
    ['Raid', 'raid'],
  ];
  for (const [override, key] of guarded) {
    if (
      !allowed.includes(override) &&
      differs(section(oldIgn, 'storage', key), section(newIgn, 'storage', key))
    ) {
      return { kind: 'SectionChanged', section: key };
    }
  }
  if (
    differs(section(oldIgn, 'storage', 'directories'), section(newIgn, 'storage', 'directories'))
  ) {
    return { kind: 'SectionChanged', section: 'directories' };
  }
  const newLinks = asList(section(newIgn, 'storage', 'links'));
  if (newLinks.length > 0 && differs(section(oldIgn, 'storage', 'links'), newLinks)) {
    return { kind: 'SectionChanged', section: 'links' };
  }
  for (const file of asList(section(newIgn, 'storage', 'files'))) {
    if (asList(file['append']).length > 0)
      return { kind: 'FileAppend', path: String(file['path']) };
    if (file['path'] === ForceFilePath) return { kind: 'ForceFile' };
  }
  return undefined;
}

/** The first reason, in upstream's order, why `newIgn` cannot replace `oldIgn` on a running node. */
export function unreconcilableReason(
  oldIgn: Json,
  newIgn: Json,
  fips: { readonly old: boolean; readonly new: boolean },
  overrides: ReconcileOverrides = {},
): UnreconcilableReason | undefined {
  return (
    checkPasswd(oldIgn, newIgn) ??
    (differs(section(oldIgn, 'kernelArguments'), section(newIgn, 'kernelArguments'))
      ? { kind: 'SectionChanged', section: 'kargs' }
      : undefined) ??
    checkStorage(oldIgn, newIgn, overrides) ??
    (fips.old !== fips.new ? { kind: 'Fips' } : undefined)
  );
}

/** Parses both configs (any supported spec version) and checks `newMc` may replace `oldMc`. */
export function checkReconcilable(
  oldMc: MachineConfig,
  newMc: MachineConfig,
  overrides: ReconcileOverrides = {},
): Result<void, ReconcileError> {
  const oldName = oldMc.metadata.name ?? '';
  const newName = newMc.metadata.name ?? '';
  const oldParsed = parseAndConvertConfig(oldMc.spec?.config ?? EMPTY_CONFIG);
  if (!oldParsed.ok)
    return err({
      kind: 'ParseOld',
      config: oldName,
      message: describeMcoParseError(oldParsed.error),
    });
  const newParsed = parseAndConvertConfig(newMc.spec?.config ?? EMPTY_CONFIG);
  if (!newParsed.ok)
    return err({
      kind: 'ParseNew',
      config: newName,
      message: describeMcoParseError(newParsed.error),
    });

  const reason = unreconcilableReason(
    compactIgnition(oldParsed.value),
    compactIgnition(newParsed.value),
    { old: oldMc.spec?.fips === true, new: newMc.spec?.fips === true },
    overrides,
  );
  return reason === undefined
    ? ok(undefined)
    : err({ kind: 'Unreconcilable', oldConfig: oldName, newConfig: newName, reason });
}

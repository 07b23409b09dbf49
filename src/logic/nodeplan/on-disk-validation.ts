/**
 * On-disk validation (upstream validateOnDiskState and on_disk_validation.go,
 * docs/reference/daemon.md §7.7, §7.9): does the machine match a config? The caller reads the
 * machine (onDiskTargets says what to read) and this decides, returning the first mismatch with upstream's text. Used
 * after a reboot (OS image, kernel arguments, files, units) and by the drift monitor (files and
 * units only).
 */
import { goQuote } from '../../lib/go/quote.js';
import type { IgnitionConfig, IgnitionUnit } from '../../ignition/types.js';
import { err, ok, type Result } from '../../lib/result.js';
import {
  decodeFileContents,
  describeFileContentsError,
  type FileContentsError,
} from './file-contents.js';
import { DefaultFileMode } from './file-writes.js';
import { goFileModeFromStat, goFileModeTriple, type FileKind } from './go-file-mode.js';
import { missingKernelArguments } from './kernel-arguments.js';
import type { NodeConfig } from './node-config.js';
import {
  CloudCaBundlePath,
  DevNull,
  dropinPath,
  InternalRegistryAuthFilePath,
  KubeletCaPath,
  unitPath,
} from './node-paths.js';

/** What the caller found at a path: lstat (kind, permission bits 0o7777), the bytes, realpath. */
export type ObservedPath =
  | { readonly exists: false }
  | {
      readonly exists: true;
      readonly kind: FileKind;
      readonly mode: number;
      /** The content read through symlinks; absent when it could not be read (a directory). */
      readonly contents?: Uint8Array;
      /** The path with every symlink resolved (filepath.EvalSymlinks); absent if it dangles. */
      readonly realPath?: string;
    };

export interface ObservedState {
  /** The booted OS image; leave out to skip the OS check (non-CoreOS hosts, drift monitor). */
  readonly bootedImage?: string;
  /** The running kernel arguments, split; leave out to skip the kernel argument check. */
  readonly kernelArguments?: readonly string[];
  /** Every path of `onDiskTargets(...).paths`; a path not in the map counts as missing. */
  readonly paths: ReadonlyMap<string, ObservedPath>;
  /** `systemctl is-enabled <unit>` output for `onDiskTargets(...).units`. */
  readonly unitEnablement: ReadonlyMap<string, string>;
}

export type OnDiskMismatch =
  | { readonly kind: 'OsImage'; readonly expected: string; readonly booted: string }
  | { readonly kind: 'KernelArguments'; readonly missing: readonly string[] }
  | { readonly kind: 'Append' }
  | { readonly kind: 'Decode'; readonly path: string; readonly error: FileContentsError }
  | { readonly kind: 'Missing'; readonly path: string }
  | {
      readonly kind: 'Mode';
      readonly path: string;
      readonly expected: number;
      readonly received: number;
    }
  | { readonly kind: 'Unreadable'; readonly path: string }
  | { readonly kind: 'Content'; readonly path: string }
  | { readonly kind: 'MaskUnresolvable'; readonly path: string }
  | { readonly kind: 'MaskTarget'; readonly path: string; readonly received: string }
  | {
      readonly kind: 'Enablement';
      readonly unit: string;
      readonly expected: boolean;
      readonly reported: string;
    };

/** Upstream's exact text for each mismatch. */
export function describeOnDiskMismatch(m: OnDiskMismatch): string {
  switch (m.kind) {
    case 'OsImage':
      return `expected target osImageURL ${goQuote(m.expected)}, have ${goQuote(m.booted)}`;
    case 'KernelArguments':
      return `missing expected kernel arguments: [${m.missing.join(' ')}]`;
    case 'Append':
      return 'found an append section when checking files. Append is not supported';
    case 'Decode':
      return `couldn't decode file ${goQuote(m.path)}: ${describeFileContentsError(m.error)}`;
    case 'Missing':
      return `could not stat file ${goQuote(m.path)}: lstat ${m.path}: no such file or directory`;
    case 'Mode':
      return `mode mismatch for file: ${goQuote(m.path)}; expected: ${goFileModeTriple(m.expected)}; received: ${goFileModeTriple(m.received)}`;
    case 'Unreadable':
      return `could not read file ${goQuote(m.path)}: read ${m.path}: is a directory`;
    case 'Content':
      return `content mismatch for file ${goQuote(m.path)}`;
    case 'MaskUnresolvable':
      return `state validation: error while evaluation symlink for path ${goQuote(m.path)}: lstat ${m.path}: no such file or directory`;
    case 'MaskTarget':
      return `state validation: invalid unit masked setting. path: ${goQuote(m.path)}; expected: ${DevNull}; received: ${m.received}`;
    case 'Enablement':
      return `unit ${goQuote(m.unit)} expected enabled=${String(m.expected)}, but systemd reports ${goQuote(m.reported)}`;
  }
}

/**
 * The Degraded reason: `unexpected on-disk state validating against <config>: <mismatch>`, plus
 * `; possible root cause: <err>` when ostree-finalize-staged failed on the way down.
 */
export function describeOnDiskValidationFailure(
  config: string,
  mismatch: OnDiskMismatch,
  possibleRootCause?: string,
): string {
  const base = `unexpected on-disk state validating against ${config}: ${describeOnDiskMismatch(mismatch)}`;
  return possibleRootCause === undefined
    ? base
    : `${base}; possible root cause: ${possibleRootCause}`;
}

/** Files the certificate writer (or the MCO itself) rewrites outside of MachineConfigs. */
const FilesNotValidated = new Set([KubeletCaPath, CloudCaBundlePath, InternalRegistryAuthFilePath]);

const unitHasContents = (u: IgnitionUnit): boolean => u.contents !== undefined && u.contents !== '';

export interface OnDiskTargets {
  /** Paths to lstat, read and resolve. */
  readonly paths: readonly string[];
  /** Units to ask `systemctl is-enabled` about. */
  readonly units: readonly string[];
}

/** What validateFilesAndUnits looks at, so the caller reads only that. */
export function onDiskTargets(ign: IgnitionConfig): OnDiskTargets {
  const files = (ign.storage?.files ?? [])
    .map((f) => f.path)
    .filter((p) => !FilesNotValidated.has(p));
  const units = ign.systemd?.units ?? [];
  const dropins = units.flatMap((u) => (u.dropins ?? []).map((d) => dropinPath(u.name, d.name)));
  const withContents = units.filter(unitHasContents);
  return {
    paths: [...files, ...dropins, ...withContents.map((u) => unitPath(u.name))],
    units: withContents
      .filter((u) => u.mask !== true && u.enabled !== undefined)
      .map((u) => u.name),
  };
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** checkFileContentsAndMode. */
function checkFile(
  path: string,
  expected: Uint8Array,
  mode: number,
  observed: ReadonlyMap<string, ObservedPath>,
): OnDiskMismatch | undefined {
  const o = observed.get(path) ?? { exists: false };
  if (!o.exists) return { kind: 'Missing', path };
  const received = goFileModeFromStat(o.kind, o.mode);
  if (received !== mode) return { kind: 'Mode', path, expected: mode, received };
  if (o.contents === undefined) return { kind: 'Unreadable', path };
  return sameBytes(o.contents, expected) ? undefined : { kind: 'Content', path };
}

function checkFiles(ign: IgnitionConfig, observed: ObservedState): OnDiskMismatch | undefined {
  for (const f of ign.storage?.files ?? []) {
    if (FilesNotValidated.has(f.path)) continue;
    if ((f.append ?? []).length > 0) return { kind: 'Append' };
    const contents = decodeFileContents(f.contents?.source, f.contents?.compression);
    if (!contents.ok) return { kind: 'Decode', path: f.path, error: contents.error };
    const m = checkFile(f.path, contents.value, f.mode ?? DefaultFileMode, observed.paths);
    if (m !== undefined) return m;
  }
  return undefined;
}

const encoder = new TextEncoder();

function checkDropins(u: IgnitionUnit, observed: ObservedState): OnDiskMismatch | undefined {
  for (const d of u.dropins ?? []) {
    const path = dropinPath(u.name, d.name);
    const content = d.contents ?? '';
    // empty dropins are removed on write; an old zero-length one is still accepted
    if (content === '' && observed.paths.get(path)?.exists !== true) continue;
    const m = checkFile(path, encoder.encode(content), DefaultFileMode, observed.paths);
    if (m !== undefined) return m;
  }
  return undefined;
}

function checkMask(path: string, observed: ObservedState): OnDiskMismatch | undefined {
  const o = observed.paths.get(path);
  if (o?.exists !== true || o.realPath === undefined) return { kind: 'MaskUnresolvable', path };
  return o.realPath === DevNull ? undefined : { kind: 'MaskTarget', path, received: o.realPath };
}

function checkEnablement(u: IgnitionUnit, observed: ObservedState): OnDiskMismatch | undefined {
  if (u.enabled === undefined) return undefined;
  const reported = observed.unitEnablement.get(u.name) ?? 'not-found';
  return (reported === 'enabled') === u.enabled
    ? undefined
    : { kind: 'Enablement', unit: u.name, expected: u.enabled, reported };
}

/** A unit's dropins; then, if it has contents, its mask link or its contents and enablement. */
function checkUnit(u: IgnitionUnit, observed: ObservedState): OnDiskMismatch | undefined {
  const dropinMismatch = checkDropins(u, observed);
  if (dropinMismatch !== undefined || !unitHasContents(u)) return dropinMismatch;
  const path = unitPath(u.name);
  if (u.mask === true) return checkMask(path, observed);
  return (
    checkFile(path, encoder.encode(u.contents ?? ''), DefaultFileMode, observed.paths) ??
    checkEnablement(u, observed)
  );
}

/** Files, then units: the drift monitor's check. */
export function validateFilesAndUnits(
  ign: IgnitionConfig,
  observed: ObservedState,
): Result<void, OnDiskMismatch> {
  const fileMismatch = checkFiles(ign, observed);
  if (fileMismatch !== undefined) return err(fileMismatch);
  for (const u of ign.systemd?.units ?? []) {
    const m = checkUnit(u, observed);
    if (m !== undefined) return err(m);
  }
  return ok(undefined);
}

/** The boot-time check: OS image, kernel arguments, then files and units. */
export function validateOnDiskState(
  expected: NodeConfig,
  observed: ObservedState,
): Result<void, OnDiskMismatch> {
  if (observed.bootedImage !== undefined && observed.bootedImage !== expected.osImageURL)
    return err({ kind: 'OsImage', expected: expected.osImageURL, booted: observed.bootedImage });
  if (observed.kernelArguments !== undefined) {
    const missing = missingKernelArguments(expected.kernelArguments, observed.kernelArguments);
    if (missing.length > 0) return err({ kind: 'KernelArguments', missing });
  }
  return validateFilesAndUnits(expected.ignition, observed);
}

export interface DriftWatch {
  /** The config's file, unit and dropin paths that exist: events on these trigger validation. */
  readonly paths: readonly string[];
  /** Their parent directories, sorted and unique: what to watch (inotify cannot watch files that get renamed over). */
  readonly directories: readonly string[];
}

/** getFilePathsFromMachineConfig: the paths the drift monitor watches. */
export function driftWatchPaths(
  ign: IgnitionConfig,
  exists: (path: string) => boolean,
): DriftWatch {
  const candidates = [
    ...(ign.storage?.files ?? []).map((f) => f.path),
    ...(ign.systemd?.units ?? []).flatMap((u) => [
      unitPath(u.name),
      ...(u.dropins ?? []).map((d) => dropinPath(u.name, d.name)),
    ]),
  ];
  const paths = [...new Set(candidates)].filter(exists);
  const directories = [
    ...new Set(paths.map((p) => p.slice(0, Math.max(p.lastIndexOf('/'), 1)))),
  ].sort();
  return { paths, directories };
}

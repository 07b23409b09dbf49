/**
 * Reads what on-disk validation compares (docs/reference/daemon.md §7.7, §7.9) from the Host: lstat,
 * bytes and symlink resolution of each path `onDiskTargets` names, `systemctl is-enabled` of each
 * unit, and, for the boot-time check, the booted OS image and kernel arguments. The decision
 * itself is the pure validateOnDiskState / validateFilesAndUnits.
 */
import type { Host } from '../ports/host.js';
import type { IgnitionConfig } from '../ignition/types.js';
import type { NodeConfig } from '../logic/nodeplan/node-config.js';
import {
  onDiskTargets,
  validateFilesAndUnits,
  validateOnDiskState,
  type ObservedPath,
  type ObservedState,
  type OnDiskMismatch,
} from '../logic/nodeplan/on-disk-validation.js';
import { DevNull } from '../logic/nodeplan/node-paths.js';
import type { Result } from '../lib/result.js';

const MaxLinkHops = 40;

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

function joinLink(linkPath: string, target: string): string {
  const base = target.startsWith('/') ? target : `${parentOf(linkPath)}/${target}`;
  const out: string[] = [];
  for (const c of base.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..') out.pop();
    else out.push(c);
  }
  return `/${out.join('/')}`;
}

/**
 * filepath.EvalSymlinks of the last component: follows links inside the node; undefined when the
 * chain dangles. /dev/null counts as resolved even when a simulated root has no /dev.
 */
async function resolveLink(host: Host, path: string): Promise<string | undefined> {
  let current = path;
  for (let hop = 0; hop < MaxLinkHops; hop++) {
    if (current === DevNull) return current;
    const info = await host.files.stat(current);
    if (info === undefined) return undefined;
    if (info.kind !== 'symlink' || info.linkTarget === undefined) return current;
    current = joinLink(current, info.linkTarget);
  }
  return undefined;
}

async function observePath(host: Host, path: string): Promise<ObservedPath> {
  const info = await host.files.stat(path);
  if (info === undefined) return { exists: false };
  const realPath = info.kind === 'symlink' ? await resolveLink(host, path) : path;
  let contents: Uint8Array | undefined;
  if (info.kind !== 'directory' && realPath !== DevNull) {
    try {
      contents = await host.files.read(path);
    } catch {
      contents = undefined;
    }
  }
  return {
    exists: true,
    kind: info.kind,
    mode: info.mode,
    ...(contents === undefined ? {} : { contents }),
    ...(realPath === undefined ? {} : { realPath }),
  };
}

interface ObserveOptions {
  /** Also read the booted OS image and kernel arguments (boot-time validation). */
  readonly os: boolean;
}

async function observeOnDiskState(
  host: Host,
  ign: IgnitionConfig,
  options: ObserveOptions,
): Promise<ObservedState> {
  const targets = onDiskTargets(ign);
  const paths = new Map<string, ObservedPath>();
  for (const p of targets.paths) paths.set(p, await observePath(host, p));
  const unitEnablement = new Map<string, string>();
  for (const u of targets.units) unitEnablement.set(u, await host.systemd.isEnabled(u));
  if (!options.os) return { paths, unitEnablement };
  const booted = (await host.os.status()).booted;
  return {
    paths,
    unitEnablement,
    kernelArguments: booted.kernelArguments,
    ...(booted.extensions === undefined ? {} : { bootedExtensions: booted.extensions }),
    // a host that cannot tell which image it booted skips the image check
    ...(booted.image === undefined ? {} : { bootedImage: booted.image }),
  };
}

/** The boot-time check: OS image, kernel arguments, files and units. */
export async function checkOnDiskState(
  host: Host,
  config: NodeConfig,
): Promise<Result<void, OnDiskMismatch>> {
  return validateOnDiskState(config, await observeOnDiskState(host, config.ignition, { os: true }));
}

/** The drift check: files and units only. */
export async function checkFilesAndUnits(
  host: Host,
  ign: IgnitionConfig,
): Promise<Result<void, OnDiskMismatch>> {
  return validateFilesAndUnits(ign, await observeOnDiskState(host, ign, { os: false }));
}

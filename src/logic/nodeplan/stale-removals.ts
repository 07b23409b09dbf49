/**
 * What an update removes (upstream deleteStaleData, docs/reference/daemon.md §7.6): files, dropins and
 * units of the old config that the new one no longer has. For each, the caller restores or drops
 * the backup (`.mcdnoorig` stamp → delete; `.mcdorig` → restore when the OS shipped the file)
 * and then deletes the path, a missing path being only a warning.
 */
import type { IgnitionConfig } from '../../ignition/types.js';
import {
  CloudCaBundlePath,
  dropinPath,
  ImageRegistryCaDir,
  KubeletCaPath,
  unitPath,
  UserCaBundlePath,
} from './node-paths.js';

/** Certificates kept even when no config lists them any more (the certificate writer owns them). */
const CertsToSkip = [UserCaBundlePath, KubeletCaPath, CloudCaBundlePath];

/** Enablement links earlier MCDs leaked (OCPBUGS-33694); removed on every update if present. */
const LeakedEnablementLinks = [
  '/etc/systemd/system/network-online.target.requires/node-valid-hostname.service',
  '/etc/systemd/system/network-online.target.wants/ovs-configuration.service',
] as const;

interface StaleFile {
  readonly path: string;
  /**
   * The path is now a dropin of a unit in the new config: handle its backup as usual but do not
   * delete it (writeUnits has written it).
   */
  readonly keep: boolean;
}

/** In upstream's order: for each old unit, its stale dropins, then the unit itself if gone. */
type StaleSystemdPath =
  /** A dropin the new config does not have. */
  | { readonly kind: 'dropin'; readonly path: string }
  /** A removed unit: `systemctl preset <name>` first (failures ignored), then remove `path`. */
  | { readonly kind: 'unit'; readonly name: string; readonly path: string };

export interface StaleRemovals {
  readonly files: readonly StaleFile[];
  readonly systemd: readonly StaleSystemdPath[];
  readonly leakedLinks: readonly string[];
}

/** isPathASystemdDropin: `/etc/systemd/system…/<unit>.d/<name>.conf` → unit and dropin name. */
export function systemdDropinOf(path: string): { unit: string; dropin: string } | undefined {
  if (!path.startsWith('/etc/systemd/system') || !path.endsWith('.conf')) return undefined;
  const segments = path.split('/');
  const dropin = segments.at(-1) ?? '';
  const parts = (segments.at(-2) ?? '').split('.');
  if (parts.at(-1) !== 'd') return undefined;
  return { unit: parts.slice(0, -1).join('.'), dropin };
}

function isNowADropin(path: string, newIgn: IgnitionConfig): boolean {
  const d = systemdDropinOf(path);
  if (d === undefined) return false;
  return (newIgn.systemd?.units ?? []).some(
    (u) => u.name === d.unit && (u.dropins ?? []).some((x) => x.name === d.dropin),
  );
}

function isSkippedCert(path: string): boolean {
  const dir = path.slice(0, Math.max(path.lastIndexOf('/'), 1));
  return CertsToSkip.includes(path) || dir.includes(ImageRegistryCaDir);
}

export function planStaleRemovals(oldIgn: IgnitionConfig, newIgn: IgnitionConfig): StaleRemovals {
  const newFiles = new Set((newIgn.storage?.files ?? []).map((f) => f.path));
  const files = (oldIgn.storage?.files ?? [])
    .filter((f) => !newFiles.has(f.path) && !isSkippedCert(f.path))
    .map((f) => ({ path: f.path, keep: isNowADropin(f.path, newIgn) }));

  const newUnits = newIgn.systemd?.units ?? [];
  const newUnitPaths = new Set(newUnits.map((u) => unitPath(u.name)));
  const newDropins = new Set(
    newUnits.flatMap((u) => (u.dropins ?? []).map((d) => dropinPath(u.name, d.name))),
  );
  const systemd: StaleSystemdPath[] = [];
  for (const u of oldIgn.systemd?.units ?? []) {
    for (const d of u.dropins ?? []) {
      const path = dropinPath(u.name, d.name);
      if (!newDropins.has(path)) systemd.push({ kind: 'dropin', path });
    }
    const path = unitPath(u.name);
    if (!newUnitPaths.has(path)) systemd.push({ kind: 'unit', name: u.name, path });
  }
  return { files, systemd, leakedLinks: [...LeakedEnablementLinks] };
}

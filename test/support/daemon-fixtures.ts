/**
 * Helpers for the daemon's tests: MachineConfigs made like upstream's fixtures, a snapshot of a
 * node's disk (to prove "the old config or the new one, never a mix"), and crash points that stop
 * an update in-process the way a kill would (the journal stays, nothing is rolled back).
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type {
  MachineConfig,
  MachineConfigSpec,
} from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { IgnitionConfig } from '../../src/ignition/types.js';
import type { CrashPoints } from '../../src/daemon/crash-points.js';
import { DaemonError } from '../../src/daemon/daemon-errors.js';

export function mc(
  name: string,
  config: Omit<IgnitionConfig, 'ignition'>,
  spec: Omit<MachineConfigSpec, 'config'> = {},
): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name },
    spec: {
      osImageURL: 'plain:boot',
      ...spec,
      config: { ignition: { version: '3.5.0' }, ...config },
    },
  };
}

const dataUrl = (text: string): string => `data:,${encodeURIComponent(text)}`;

export function file(path: string, text: string, mode = 0o644) {
  return { path, mode, contents: { source: dataUrl(text) } };
}

/** Every entry under `root` (except the skipped top-level folders) with type, mode, owner, content. */
export function snapshot(root: string, skip: readonly string[] = ['run']): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const r = `${rel}/${name}`;
      if (rel === '' && skip.includes(name)) continue;
      const full = join(dir, name);
      const st = lstatSync(full);
      const meta = `${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid}`;
      if (st.isSymbolicLink()) out.set(r, `link ${readlinkSync(full)}`);
      else if (st.isDirectory()) {
        out.set(r, `dir ${meta}`);
        walk(full, r);
      } else
        out.set(r, `file ${meta} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
    }
  };
  walk(root, '');
  return out;
}

/** The differences between two snapshots, as readable lines. */
export function snapshotDiff(a: Map<string, string>, b: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of a) if (b.get(k) !== v) out.push(`${k}: ${v} → ${b.get(k) ?? '(gone)'}`);
  for (const [k, v] of b) if (!a.has(k)) out.push(`${k}: (none) → ${v}`);
  return out;
}

/** Stops the update at the n-th time `step` is reached, leaving the journal as a crash would. */
export function stopAt(step: string, occurrence = 1): CrashPoints & { readonly hit: boolean } {
  let hits = 0;
  let hit = false;
  return {
    get hit() {
      return hit;
    },
    reached(s) {
      if (s !== step || hit) return;
      hits++;
      if (hits === occurrence) {
        hit = true;
        throw DaemonError.stopped(`crash at ${step}:${String(occurrence)}`);
      }
    },
  };
}

/**
 * Reads manifest files and folders from disk for offline commands (`mco render`, `mco bootstrap`):
 * files in the order given, folders recursively in name order, `.yaml`, `.yml` and `.json` only.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describeManifestError, parseManifests, type ManifestObject } from '../lib/manifests.js';

const ManifestExtensions = ['.yaml', '.yml', '.json'];

function filesUnder(path: string): string[] {
  const stat = statSync(path);
  if (!stat.isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((entry) => {
      const child = join(path, entry);
      if (statSync(child).isDirectory()) return filesUnder(child);
      return ManifestExtensions.some((ext) => entry.endsWith(ext)) ? [child] : [];
    });
}

/** Thrown for unreadable or malformed input; the message is what the user sees. */
export class ManifestLoadError extends Error {
  override readonly name = 'ManifestLoadError';
}

export function loadManifests(paths: readonly string[]): ManifestObject[] {
  const objects: ManifestObject[] = [];
  for (const path of paths) {
    let files: string[];
    try {
      files = filesUnder(path);
    } catch (e) {
      throw new ManifestLoadError(`the path "${path}" does not exist`, { cause: e });
    }
    for (const file of files) {
      const parsed = parseManifests(readFileSync(file, 'utf8'), file);
      if (!parsed.ok) throw new ManifestLoadError(describeManifestError(parsed.error));
      objects.push(...parsed.value);
    }
  }
  return objects;
}

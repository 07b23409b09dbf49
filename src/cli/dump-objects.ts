/**
 * The objects of a dump folder for `mco rollout preview --from-dir`: every `.yaml`, `.yml` and
 * `.json` file under it (`kubectl get -o yaml` output, a must-gather's `cluster-scoped-resources/`
 * and `namespaces/`), Lists expanded. A dump is someone else's folder: symbolic links are not
 * followed (a link could lead out of it, or round in a loop), a file over 64 MiB or one that does
 * not parse is skipped with a note rather than ending the preview, and so is an object without a
 * name.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeManifestError, parseManifests } from '../lib/manifests.js';
import type { ApiObject } from '../ports/resource-client.js';
import { CliError } from '../shell/cli-io.js';

const Extensions = ['.yaml', '.yml', '.json'];
const MaxFileBytes = 64 * 1024 * 1024;
const MaxDepth = 32;

export interface Dump {
  readonly objects: readonly ApiObject[];
  readonly notes: readonly string[];
}

function walk(path: string, depth: number, files: string[], notes: string[]): void {
  for (const entry of readdirSync(path).sort()) {
    const child = join(path, entry);
    const stat = lstatSync(child);
    if (stat.isSymbolicLink()) notes.push(`${child}: a symbolic link, not followed`);
    else if (stat.isDirectory()) {
      if (depth >= MaxDepth) notes.push(`${child}: deeper than ${MaxDepth} folders, skipped`);
      else walk(child, depth + 1, files, notes);
    } else if (!stat.isFile() || !Extensions.some((e) => entry.endsWith(e))) continue;
    else if (stat.size > MaxFileBytes) notes.push(`${child}: larger than 64 MiB, skipped`);
    else files.push(child);
  }
}

export function loadDump(dir: string): Dump {
  let top;
  try {
    top = lstatSync(dir);
  } catch {
    throw new CliError(`--from-dir ${dir}: no such folder`);
  }
  if (!top.isDirectory()) throw new CliError(`--from-dir ${dir}: not a folder`);
  const files: string[] = [];
  const notes: string[] = [];
  walk(dir, 0, files, notes);
  const objects: ApiObject[] = [];
  for (const file of files) {
    const parsed = parseManifests(readFileSync(file, 'utf8'), file);
    if (!parsed.ok) {
      notes.push(`${describeManifestError(parsed.error)}: skipped`);
      continue;
    }
    for (const o of parsed.value) {
      if (
        typeof o.metadata?.name !== 'string' ||
        o.metadata.name === '' ||
        typeof o.kind !== 'string'
      )
        notes.push(`${file}: an object without a kind or a name, skipped`);
      else objects.push(o as unknown as ApiObject);
    }
  }
  if (objects.length === 0)
    throw new CliError(
      `--from-dir ${dir}: holds no objects; dump them with \`kubectl get machineconfigpools,machineconfigs,nodes,controllerconfigs,machineconfigurations -o yaml > ${dir}/cluster.yaml\``,
    );
  return { objects, notes };
}

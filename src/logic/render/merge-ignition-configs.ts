/**
 * The Ignition part of upstream's MergeMachineConfigs (docs/reference/render.md §3.4): Ignition 3 merge
 * semantics plus two MCO fix-ups on files. Upstream merges one config at a time; this is the same
 * result from one n-ary merge (`mergeIgnitionAll`) and one pass over the files.
 *
 * - Compression: before each merge upstream marks "no compression" explicitly (`""`) on every
 *   file of the child, so that a file overriding a gzipped one is not left gzipped; after each
 *   merge it clears the marks again. Only a file merged into an existing one needs the mark (an
 *   added file's mark is cleared unread), and clearing once at the end equals clearing after
 *   every merge (a later override brings its own mark either way).
 * - Overwrite: files that end up without `overwrite` get `true`.
 */
import { mergeIgnitionAll } from '../../ignition/merge.js';
import type { IgnitionConfig, IgnitionFile } from '../../ignition/types.js';

/** `children.reduce(upstream's merge step, base)`, fix-ups included. */
export function mergeIgnitionConfigs(
  base: IgnitionConfig,
  children: readonly IgnitionConfig[],
): IgnitionConfig {
  const seen = new Set(filePaths(base));
  const marked = children.map((child) => {
    const withMarks = mapFiles(child, (f) => (seen.has(f.path) ? withNoCompressionMark(f) : f));
    for (const path of filePaths(child)) seen.add(path);
    return withMarks;
  });
  const merged = mergeIgnitionAll(base, marked);
  // Upstream clears marks only after a merge: a lone config keeps an explicit "".
  const clearMarks = children.length > 0;
  return mapFiles(merged, (f) =>
    withDefaultOverwrite(clearMarks ? withoutNoCompressionMark(f) : f),
  );
}

function filePaths(config: IgnitionConfig): string[] {
  return (config.storage?.files ?? []).map((f) => f.path);
}

/** The config with `f` applied to its files; the config itself when no file changes. */
function mapFiles(config: IgnitionConfig, f: (file: IgnitionFile) => IgnitionFile): IgnitionConfig {
  const files = config.storage?.files;
  if (files === undefined) return config;
  const mapped = files.map(f);
  if (mapped.every((file, i) => file === files[i])) return config;
  return withProps(config, { storage: withProps(config.storage ?? {}, { files: mapped }) });
}

/**
 * `{ ...rec, ...changes }`. Spelled with Object.assign because V8 (Node 20) is ~10 times slower
 * at a spread followed by more properties, which shows over the thousands of files of a pool.
 */
function withProps<T extends object>(rec: T, changes: Partial<T>): T {
  return Object.assign({}, rec, changes);
}

/** A copy of `rec` without `key` (not `delete`, which makes V8 store the object as a dictionary). */
function withoutProp<T extends object>(rec: T, key: keyof T): T {
  const out = {} as T;
  for (const k of Object.keys(rec) as (keyof T)[]) if (k !== key) out[k] = rec[k];
  return out;
}

function withNoCompressionMark(file: IgnitionFile): IgnitionFile {
  if (file.contents?.compression !== undefined) return file;
  return withProps(file, { contents: withProps(file.contents ?? {}, { compression: '' }) });
}

function withoutNoCompressionMark(file: IgnitionFile): IgnitionFile {
  if (file.contents?.compression !== '') return file;
  return withProps(file, { contents: withoutProp(file.contents, 'compression') });
}

function withDefaultOverwrite(file: IgnitionFile): IgnitionFile {
  return file.overwrite === undefined ? withProps(file, { overwrite: true }) : file;
}

/**
 * Extensions on an OSTree host (docs/extensions.md): an extension is a tree committed in the
 * extensions image's repository under the ref `extensions/<name>`; installing extensions makes a
 * new commit that layers those trees over the OS commit (`ostree commit --tree=ref=<os>
 * --tree=ref=<ext>…`, later trees win), and that commit is what the next boot deploys. The layered
 * commit records its OS commit (`mco.base-commit`) and its extensions (`mco.extensions`), so
 * removing every extension goes back to the plain OS commit, a later change layers on the right
 * base, and the booted deployment says what it carries.
 *
 * Names are checked against the allowlist again here (a forged rendered config must not name
 * refs of its choosing), and an extension the image does not ship is an error that stages nothing.
 */
import type { CommandRunner } from '../ports/command-runner.js';
import {
  unknownExtensions,
  invalidExtensionsMessage,
} from '../logic/nodeplan/extension-packages.js';
import { OstreeCli, OstreeError } from './ostree.js';

/** Commit metadata of a layered commit. */
const LayeredCommitKey = {
  base: 'mco.base-commit',
  extensions: 'mco.extensions',
} as const;

/** Where an extension's tree is in an extensions repository. */
export const extensionRef = (name: string): string => `extensions/${name}`;
/** The ref of the union of all of an image's extensions (the image's `ostree.commit`). */
export const ExtensionsUnionRef = 'extensions-union';

/** Finds the repository holding an extensions image's refs (pulled and cached as needed). */
export interface ExtensionsSource {
  repository(image: string, signal?: AbortSignal): Promise<string>;
}

/** `ostree-local:<repo path>`: a local repository with `extensions/<name>` refs. */
export const localExtensionsSource: ExtensionsSource = {
  repository(image) {
    if (!image.startsWith('ostree-local:'))
      return Promise.reject(
        new Error(
          `extensions image ${image}: unsupported reference (this node takes ostree-local:<repo>)`,
        ),
      );
    return Promise.resolve(image.slice('ostree-local:'.length));
  },
};

/** The OS commit under a commit: itself unless it is a layered commit. */
export async function baseOsCommit(
  ostree: OstreeCli,
  repo: string,
  checksum: string,
): Promise<string> {
  const base = await ostree.commitMetadata(repo, checksum, LayeredCommitKey.base);
  return base !== undefined && /^[0-9a-f]{64}$/.test(base) ? base : checksum;
}

/** The extensions a commit carries (none unless it is a layered commit). */
export async function commitExtensions(
  ostree: OstreeCli,
  repo: string,
  checksum: string,
): Promise<string[]> {
  const text = await ostree.commitMetadata(repo, checksum, LayeredCommitKey.extensions);
  return text === undefined ? [] : text.split(' ').filter((x) => x !== '');
}

export interface LayerExtensionsOptions {
  readonly runner: CommandRunner;
  /** The node's repository. */
  readonly repo: string;
  /** The commit the next boot would use without this step (plain or layered). */
  readonly from: string;
  /** Sorted, de-duplicated allowlist names; empty gives the plain OS commit back. */
  readonly extensions: readonly string[];
  readonly image: string;
  readonly source: ExtensionsSource;
  readonly signal?: AbortSignal;
}

/** Makes (or finds) the commit of the OS under `from` with exactly `extensions` on top. */
export async function layerExtensions(o: LayerExtensionsOptions): Promise<string> {
  const ostree = new OstreeCli(o.runner);
  const base = await baseOsCommit(ostree, o.repo, o.from);
  if (o.extensions.length === 0) return base;
  const unknown = unknownExtensions(o.extensions);
  if (unknown.length > 0) throw new Error(invalidExtensionsMessage(unknown));
  if (o.image === '')
    throw new Error(
      `cannot install extensions [${o.extensions.join(' ')}]: the config names no extensions image (baseOSExtensionsContainerImage)`,
    );
  const source = await o.source.repository(o.image, o.signal);
  const commits: string[] = [];
  const missing: string[] = [];
  for (const name of o.extensions) {
    const commit = await ostree.revParse(source, extensionRef(name));
    if (commit === undefined) missing.push(name);
    else commits.push(commit);
  }
  if (missing.length > 0)
    throw new Error(
      `the extensions image ${o.image} does not ship the extensions [${missing.join(' ')}]`,
    );
  await ostree.pullLocal(o.repo, source, commits, o.signal);
  const version = await ostree.commitMetadata(o.repo, base, 'version');
  const args = [
    `--repo=${o.repo}`,
    'commit',
    '--orphan',
    `--tree=ref=${base}`,
    ...commits.map((c) => `--tree=ref=${c}`),
    `--subject=${version ?? base.slice(0, 12)} with extensions ${o.extensions.join(' ')}`,
    ...(version === undefined ? [] : [`--add-metadata-string=version=${version}`]),
    `--add-metadata-string=${LayeredCommitKey.base}=${base}`,
    `--add-metadata-string=${LayeredCommitKey.extensions}=${o.extensions.join(' ')}`,
    // the same inputs give the same commit, so a re-run after a crash stages the same deployment
    '--timestamp=1970-01-01T00:00:00Z',
  ];
  const r = await o.runner.run(
    ['ostree', ...args],
    o.signal === undefined ? {} : { signal: o.signal },
  );
  if (r.code !== 0) throw new OstreeError(args, r.stderr);
  return r.stdout.trim();
}

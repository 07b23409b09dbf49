/**
 * Extensions on a CoreOS host as upstream installs them (docs/reference/extensions.md §3–4,
 * docs/reference/daemon.md §7.8 step 2 and 8): the extensions image is pulled with podman (the
 * kubelet's pull secret as authfile), copied out of a network-less container into
 * `/run/mco-extensions/os-extensions-content-<random>`, named as the `coreos-extensions` yum
 * repository, and `rpm-ostree update` gets upstream's generateExtensionsArgs arguments; the
 * repository is removed again whatever happens. The staged deployment must then request every
 * required package. Paths are the node's: the host runs every command inside its root.
 */
import { randomBytes } from 'node:crypto';
import {
  extensionPackageArgs,
  invalidExtensionsMessage,
  requiredExtensionPackages,
  unknownExtensions,
} from '../logic/nodeplan/extension-packages.js';
import type { CommandResult } from '../ports/command-runner.js';
import type { ExtensionsChange, NodeFiles } from '../ports/host.js';

export const ExtensionsRepoFile = '/etc/yum.repos.d/coreos-extensions.repo';
const ExtensionsContentDir = '/run/mco-extensions';
const PullSecretPath = '/var/lib/kubelet/config.json';

/** The repo file upstream writes, pointing at the copied image's rpm-md repository. */
function extensionsRepoText(contentDir: string): string {
  return `[coreos-extensions]\nenabled=1\nmetadata_expire=1m\nbaseurl=${contentDir}/usr/share/rpm-ostree/extensions/\ngpgcheck=0\nskip_if_unavailable=False\n`;
}

export interface RpmOstreeExtensionsDeps {
  readonly run: (argv: readonly string[], signal?: AbortSignal) => Promise<CommandResult>;
  readonly files: NodeFiles;
  /** The packages the booted deployment requests, and those the staged one requests. */
  readonly requestedPackages: (
    which: 'booted' | 'staged',
  ) => Promise<readonly string[] | undefined>;
  readonly log?: (message: string) => void;
}

export async function applyRpmOstreeExtensions(
  d: RpmOstreeExtensionsDeps,
  change: ExtensionsChange,
  signal?: AbortSignal,
): Promise<void> {
  const unknown = unknownExtensions(change.extensions);
  if (unknown.length > 0) throw new Error(invalidExtensionsMessage(unknown));
  const installed = new Set((await d.requestedPackages('booted')) ?? []);
  const args = extensionPackageArgs(installed, change.extensions);
  if (args.length === 0) {
    d.log?.('No extension updates required');
    return;
  }
  if (change.extensions.length > 0 && change.image === '')
    throw new Error(
      `cannot install extensions [${change.extensions.join(' ')}]: the config names no extensions image (baseOSExtensionsContainerImage)`,
    );
  const content = `${ExtensionsContentDir}/os-extensions-content-${randomBytes(6).toString('hex')}`;
  try {
    if (change.image !== '') await copyImageContent(d, change.image, content, signal);
    d.log?.(`Applying extensions : ${JSON.stringify(['update', ...args])}`);
    await d.run(['rpm-ostree', 'update', ...args], signal);
  } finally {
    await d.files.remove(ExtensionsRepoFile);
    await d.files.removeTree(content);
  }
  const staged = await d.requestedPackages('staged');
  if (staged === undefined) throw new Error('no staged deployment found after applying extensions');
  const have = new Set(staged);
  const missing = [...requiredExtensionPackages(change.extensions)]
    .filter((p) => !have.has(p))
    .sort();
  if (missing.length > 0)
    throw new Error(
      `the following extension packages are missing from the staged deployment: [${missing.join(' ')}]`,
    );
}

async function copyImageContent(
  d: RpmOstreeExtensionsDeps,
  image: string,
  content: string,
  signal?: AbortSignal,
): Promise<void> {
  try {
    const authfile =
      (await d.files.stat(PullSecretPath)) === undefined ? [] : ['--authfile', PullSecretPath];
    await d.run(['podman', 'pull', '-q', ...authfile, image], signal);
    const cid = (await d.run(['podman', 'create', '--net=none', image], signal)).stdout.trim();
    try {
      await d.files.mkdirp(content, 0o755);
      await d.run(['podman', 'cp', `${cid}:/`, content], signal);
    } finally {
      await d.run(['podman', 'rm', '-f', cid]).catch(() => undefined);
    }
    await d.run(['chcon', '-R', '-t', 'var_run_t', content], signal);
  } catch (e) {
    throw new Error(`error pulling extensions image ${image}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  await d.files.writeAtomic(
    ExtensionsRepoFile,
    new TextEncoder().encode(extensionsRepoText(content)),
    { mode: 0o644 },
  );
}

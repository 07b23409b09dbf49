/**
 * The simulated boot of an OSTree node (docs/reference/tools.md §2.4, docs/daemon.md "OSTree host and
 * simulated nodes"). libostree never sees a `--sysroot` folder as booted, so the node supervisor
 * plays firmware and initramfs, and records what it booted itself:
 *
 * - A node folder holds `rootfs/` (the machine's `/`: `sysroot/` with the OSTree sysroot, `run/`,
 *   and symlinks into the booted deployment) and `state/` (the supervisor's records).
 * - `state/booted.json` is the booted deployment; the default (next boot) is the BLS entry with
 *   the highest `version`.
 * - OS changes are staged, as `ostree admin deploy --stage` would (it refuses without a booted
 *   system): `/run/ostree/mco-staged-deployment.json` names the commit and kernel arguments, and
 *   the shutdown half of a reboot deploys it. The deployment then merges /etc from the booted one
 *   with every change made up to the reboot, as ostree-finalize-staged does on a real host.
 * - `state/reboot-request.json` is how the host asks the supervisor for a reboot.
 */
import { randomUUID } from 'node:crypto';
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { posix } from 'node:path';
import {
  deploymentOfEntry,
  readBootEntries,
  type DeploymentRef,
  type OstreeCli,
} from './ostree.js';
import type { MountLinkTest } from './rooted-node-files.js';

/** Where things are in a node folder. */
export interface NodeLayout {
  readonly dir: string;
  /** The machine's `/`. */
  readonly root: string;
  readonly sysroot: string;
  readonly repo: string;
  /** The supervisor's records (the "supervisor channel" of the ostree host). */
  readonly state: string;
  readonly booted: string;
  readonly rebootRequest: string;
}

export function nodeLayout(dir: string): NodeLayout {
  const abs = posix.resolve(dir);
  const root = posix.join(abs, 'rootfs');
  const state = posix.join(abs, 'state');
  return {
    dir: abs,
    root,
    sysroot: posix.join(root, 'sysroot'),
    repo: posix.join(root, 'sysroot/ostree/repo'),
    state,
    booted: posix.join(state, 'booted.json'),
    rebootRequest: posix.join(state, 'reboot-request.json'),
  };
}

/** The state folder of the node whose `/` is `root` (the folder beside it). */
export function defaultSupervisorChannel(root: string): string {
  return posix.join(posix.dirname(posix.resolve(root)), 'state');
}

/** What the supervisor booted. */
export interface BootedRecord {
  readonly osname: string;
  readonly checksum: string;
  readonly serial: number;
  /** The deployment folder, relative to the sysroot. */
  readonly deployment: string;
  /** The BLS entry file it booted from. */
  readonly entry: string;
  readonly kernelArguments: readonly string[];
  readonly version?: string;
  /** The OS image pull spec the deployment came from, when its origin names one. */
  readonly image?: string;
  readonly bootId: string;
  readonly bootedAt: string;
}

/** An OS change waiting for the next reboot. */
export interface StagedRecord {
  readonly checksum: string;
  readonly kernelArguments: readonly string[];
  readonly version?: string;
  readonly image?: string;
}

export interface RebootRequest {
  readonly reason: string;
  readonly requestedAt: string;
}

/** Ref in the node's repo that keeps a staged commit from being pruned before it is deployed. */
export const StagedRef = 'mco/staged';
/** The origin key rpm-ostree uses for container images; ours names the OS image pull spec. */
export const OriginImageKey = 'container-image-reference';

export function stagedRecordPath(root: string): string {
  return posix.join(root, 'run/ostree/mco-staged-deployment.json');
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Writes JSON through a temp file and rename, so a reader never sees half a record. */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await mkdir(posix.dirname(path), { recursive: true });
  const temp = `${path}.${randomUUID()}.tmp`;
  await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, { flush: true });
  await rename(temp, path);
}

export const readBooted = (stateDir: string): Promise<BootedRecord | undefined> =>
  readJson<BootedRecord>(posix.join(stateDir, 'booted.json'));

export const readStaged = (root: string): Promise<StagedRecord | undefined> =>
  readJson<StagedRecord>(stagedRecordPath(root));

export async function writeStaged(root: string, staged: StagedRecord | undefined): Promise<void> {
  if (staged === undefined) await rm(stagedRecordPath(root), { force: true });
  else await writeJsonAtomic(stagedRecordPath(root), staged);
}

export const readRebootRequest = (stateDir: string): Promise<RebootRequest | undefined> =>
  readJson<RebootRequest>(posix.join(stateDir, 'reboot-request.json'));

export async function writeRebootRequest(stateDir: string, request: RebootRequest): Promise<void> {
  await writeJsonAtomic(posix.join(stateDir, 'reboot-request.json'), request);
}

/** The `[origin]` keys of a deployment (`<deployment>.origin`). */
export async function readOrigin(
  sysroot: string,
  deployment: string,
): Promise<Readonly<Record<string, string>>> {
  let text: string;
  try {
    text = await readFile(posix.join(sysroot, `${deployment}.origin`), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw e;
  }
  const out: Record<string, string> = {};
  let section = '';
  for (const line of text.split('\n')) {
    const header = /^\[(.+)\]$/.exec(line.trim());
    if (header?.[1] !== undefined) section = header[1];
    const kv = /^([^=#\s][^=]*)=(.*)$/.exec(line);
    if (section === 'origin' && kv?.[1] !== undefined) out[kv[1].trim()] = kv[2] ?? '';
  }
  return out;
}

export function originFileText(checksum: string, image?: string): string {
  return `[origin]\nrefspec=${checksum}\n${image === undefined ? '' : `${OriginImageKey}=${image}\n`}`;
}

/** The deployment the bootloader would boot now: the BLS entry with the highest version. */
export async function defaultDeployment(
  sysroot: string,
): Promise<{ ref: DeploymentRef; kernelArguments: readonly string[]; entry: string } | undefined> {
  const [entry] = await readBootEntries(sysroot);
  if (entry === undefined) return undefined;
  return {
    ref: await deploymentOfEntry(sysroot, entry),
    kernelArguments: entry.kernelArguments,
    entry: entry.file,
  };
}

async function replaceSymlink(target: string, link: string): Promise<void> {
  const temp = `${link}.${randomUUID()}.tmp`;
  await symlink(target, temp);
  await rename(temp, link);
}

/**
 * The view's links into the sysroot stand for the mounts of a booted system: `/etc`, `/var`,
 * `/boot`, the deployment's other top-level entries, and the entries of `/usr`.
 */
export function rootViewMounts(root: string): MountLinkTest {
  const top = posix.resolve(root);
  const usr = posix.join(top, 'usr');
  return (link, target) => {
    const parent = posix.dirname(link);
    return (
      (parent === top && target.startsWith('sysroot/')) ||
      (parent === usr && target.startsWith('../sysroot/'))
    );
  };
}

/** Top-level names the view owns; everything else at the top of a deployment is linked. */
const ViewOwned = new Set(['sysroot', 'run', 'var', 'home', 'boot', 'usr', 'proc', 'sys', 'dev']);

/**
 * Points the view (`root`) at a deployment. `etc` and the deployment's other top-level entries
 * become relative links into it; `usr` is a folder of links, one per entry of the deployment's
 * /usr, so a link that leaves /usr for /var (`usr/local -> ../var/usrlocal`, as on CoreOS)
 * resolves against the view's /var, the stateroot's, as it does on a booted system.
 */
export async function linkRootView(
  root: string,
  osname: string,
  deployment: string,
): Promise<void> {
  const deployDir = posix.join('sysroot', deployment);
  const stateroot = `sysroot/ostree/deploy/${osname}/var`;
  await mkdir(posix.join(root, 'run'), { recursive: true, mode: 0o755 });
  await mkdir(posix.join(root, stateroot, 'home'), { recursive: true, mode: 0o755 });
  await replaceSymlink(stateroot, posix.join(root, 'var'));
  await replaceSymlink('var/home', posix.join(root, 'home'));
  await replaceSymlink('sysroot/boot', posix.join(root, 'boot'));

  const top = await readdir(posix.join(root, deployDir));
  const wanted = new Set(top.filter((n) => !ViewOwned.has(n)));
  for (const name of wanted) await replaceSymlink(`${deployDir}/${name}`, posix.join(root, name));
  // Drop links into an older deployment that this one does not have.
  for (const name of await readdir(root)) {
    if (ViewOwned.has(name) || wanted.has(name) || name.startsWith('.')) continue;
    const st = await lstat(posix.join(root, name));
    if (st.isSymbolicLink() && (await readlink(posix.join(root, name))).startsWith('sysroot/'))
      await rm(posix.join(root, name));
  }

  const usrDir = posix.join(root, deployDir, 'usr');
  const next = posix.join(root, `.usr-${randomUUID()}`);
  await mkdir(next, { mode: 0o755 });
  for (const name of await readdir(usrDir)) {
    const entry = posix.join(usrDir, name);
    const st = await lstat(entry);
    const own = st.isSymbolicLink() ? await readlink(entry) : undefined;
    await symlink(
      own?.startsWith('../var/') === true ? own : `../${deployDir}/usr/${name}`,
      posix.join(next, name),
    );
  }
  const usr = posix.join(root, 'usr');
  const old = posix.join(root, `.usr-old-${randomUUID()}`);
  const hadUsr = await lstat(usr).then(
    () => true,
    () => false,
  );
  if (hadUsr) await rename(usr, old);
  await rename(next, usr);
  if (hadUsr) await rm(old, { recursive: true, force: true });
}

/** Empties the view's /run (tmpfs on a real machine). */
export async function clearRun(root: string): Promise<void> {
  const run = posix.join(root, 'run');
  await rm(run, { recursive: true, force: true });
  await mkdir(run, { mode: 0o755 });
}

/**
 * The shutdown half of a reboot: deploys the staged OS change, if any, merging /etc from the
 * booted deployment. Deployments ahead of the booted one (pending ones made by hand) are dropped
 * first, so that the booted deployment is the merge source, as it is on a real host. Returns the
 * staged record it deployed.
 */
export async function finalizeStaged(
  ostree: OstreeCli,
  layout: Pick<NodeLayout, 'root' | 'sysroot' | 'repo' | 'state'>,
): Promise<StagedRecord | undefined> {
  const staged = await readStaged(layout.root);
  if (staged === undefined) return undefined;
  const booted = await readBooted(layout.state);
  if (booted !== undefined) await dropAheadOfBooted(ostree, layout.sysroot, booted);
  const originFile = posix.join(layout.state, 'staged.origin');
  await writeFile(originFile, originFileText(staged.checksum, staged.image));
  await ostree.deploy({
    sysroot: layout.sysroot,
    osname: booted?.osname ?? (await onlyOsname(layout.sysroot)),
    refspec: staged.checksum,
    kernelArguments: staged.kernelArguments,
    originFile,
  });
  await rm(originFile, { force: true });
  await writeStaged(layout.root, undefined);
  await ostree.deleteRef(layout.repo, StagedRef);
  return staged;
}

/** Undeploys every deployment listed before the booted one (index 0 must be the booted one). */
export async function dropAheadOfBooted(
  ostree: OstreeCli,
  sysroot: string,
  booted: Pick<BootedRecord, 'checksum' | 'serial'>,
): Promise<number> {
  const status = await ostree.status(sysroot);
  const index = status.findIndex(
    (d) => d.checksum === booted.checksum && d.serial === booted.serial,
  );
  for (let i = 0; i < index; i++) await ostree.undeploy(sysroot, 0);
  return Math.max(index, 0);
}

async function onlyOsname(sysroot: string): Promise<string> {
  const names = await readdir(posix.join(sysroot, 'ostree/deploy'));
  const [first] = names;
  if (first === undefined || names.length !== 1)
    throw new Error(`cannot tell the OS of ${sysroot}: stateroots ${names.join(', ')}`);
  return first;
}

/**
 * The boot half: picks the default BLS entry, points the view at its deployment, empties /run and
 * records it as booted (with a fresh boot ID).
 */
export async function bootDefault(
  ostree: OstreeCli,
  layout: Pick<NodeLayout, 'root' | 'sysroot' | 'state'>,
  now: Date,
): Promise<BootedRecord> {
  const chosen = await defaultDeployment(layout.sysroot);
  if (chosen === undefined) throw new Error(`no boot entries in ${layout.sysroot}`);
  const { ref } = chosen;
  await linkRootView(layout.root, ref.osname, ref.path);
  await clearRun(layout.root);
  const status = await ostree.status(layout.sysroot);
  const listed = status.find((d) => d.checksum === ref.checksum && d.serial === ref.serial);
  const origin = await readOrigin(layout.sysroot, ref.path);
  const image = origin[OriginImageKey];
  const record: BootedRecord = {
    osname: ref.osname,
    checksum: ref.checksum,
    serial: ref.serial,
    deployment: ref.path,
    entry: chosen.entry,
    kernelArguments: chosen.kernelArguments,
    ...(listed?.version === undefined ? {} : { version: listed.version }),
    ...(image === undefined ? {} : { image }),
    bootId: randomUUID(),
    bootedAt: now.toISOString(),
  };
  await writeJsonAtomic(posix.join(layout.state, 'booted.json'), record);
  return record;
}

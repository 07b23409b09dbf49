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
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { posix } from 'node:path';
import { NodeRoot, type MountLinkTest } from './node-root.js';
import {
  deploymentOfEntry,
  readBootEntries,
  type DeploymentRef,
  type OstreeCli,
} from './ostree.js';

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

/** The staged OS change, on the node (/run: gone after a reboot). */
const StagedRecordPath = '/run/ostree/mco-staged-deployment.json';

/** The resolver of a view: its paths inside it, its links into the sysroot crossed as mounts. */
export function viewRoot(root: string): NodeRoot {
  return new NodeRoot(root, { mountLinks: rootViewMounts(root) });
}

const asRoot = (root: string | NodeRoot): NodeRoot =>
  root instanceof NodeRoot ? root : viewRoot(root);

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

export async function readStaged(root: string | NodeRoot): Promise<StagedRecord | undefined> {
  const data = await asRoot(root).readFile(StagedRecordPath);
  return data === undefined ? undefined : (JSON.parse(data.toString('utf8')) as StagedRecord);
}

export async function writeStaged(root: NodeRoot, staged: StagedRecord | undefined): Promise<void> {
  if (staged === undefined) await root.unlink(StagedRecordPath);
  else
    await root.writeFileAtomic(
      StagedRecordPath,
      new TextEncoder().encode(`${JSON.stringify(staged, null, 2)}\n`),
      { mode: 0o644 },
    );
}

export const readRebootRequest = (stateDir: string): Promise<RebootRequest | undefined> =>
  readJson<RebootRequest>(posix.join(stateDir, 'reboot-request.json'));

export async function writeRebootRequest(stateDir: string, request: RebootRequest): Promise<void> {
  await writeJsonAtomic(posix.join(stateDir, 'reboot-request.json'), request);
}

/** The `[origin]` keys of a deployment (`<deployment>.origin`). */
export async function readOrigin(
  root: NodeRoot,
  deployment: string,
): Promise<Readonly<Record<string, string>>> {
  const data = await root.readFile(posix.join('/sysroot', `${deployment}.origin`));
  if (data === undefined) return {};
  const text = data.toString('utf8');
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

function originFileText(checksum: string, image?: string): string {
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

/**
 * The view's links into the sysroot stand for the mounts of a booted system: `/etc`, `/var`,
 * `/boot`, the deployment's other top-level entries, and the entries of `/usr`.
 */
function rootViewMounts(root: string): MountLinkTest {
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
  root: NodeRoot,
  osname: string,
  deployment: string,
): Promise<void> {
  const deployDir = posix.join('sysroot', deployment);
  const stateroot = `sysroot/ostree/deploy/${osname}/var`;
  const mount = (target: string, name: string) =>
    root.symlink(target, `/${name}`, { asLink: true });
  await root.mkdirAll('/run', 0o755);
  await root.mkdirAll(`/${stateroot}/home`, 0o755);
  await mount(stateroot, 'var');
  await mount('var/home', 'home');
  await mount('sysroot/boot', 'boot');

  const top = await root.readdir(`/${deployDir}`);
  const wanted = new Set(top.filter((n) => !ViewOwned.has(n)));
  for (const name of wanted) await mount(`${deployDir}/${name}`, name);
  await dropStaleMounts(root, wanted);

  const usrDir = `/${deployDir}/usr`;
  const next = `/.usr-${randomUUID()}`;
  await root.mkdirAll(next, 0o755);
  for (const name of await root.readdir(usrDir)) {
    const entry = `${usrDir}/${name}`;
    const st = await root.lstat(entry);
    const own = st?.isSymbolicLink() === true ? await root.readlink(entry) : undefined;
    await root.symlink(
      own?.startsWith('../var/') === true ? own : `../${deployDir}/usr/${name}`,
      `${next}/${name}`,
      { asLink: true },
    );
  }
  const old = `/.usr-old-${randomUUID()}`;
  const hadUsr = (await root.lstat('/usr', { asLink: true })) !== undefined;
  if (hadUsr) await root.rename('/usr', old);
  await root.rename(next, '/usr');
  if (hadUsr) await root.removeAll(old);
}

/** Drops the links into an older deployment that the new one does not have. */
async function dropStaleMounts(root: NodeRoot, wanted: ReadonlySet<string>): Promise<void> {
  for (const name of await root.readdir('/')) {
    if (ViewOwned.has(name) || wanted.has(name) || name.startsWith('.')) continue;
    const st = await root.lstat(`/${name}`, { asLink: true });
    if (
      st?.isSymbolicLink() === true &&
      (await root.readlink(`/${name}`, { asLink: true })).startsWith('sysroot/')
    )
      await root.unlink(`/${name}`, { asLink: true });
  }
}

/** Empties the view's /run (tmpfs on a real machine). */
async function clearRun(root: NodeRoot): Promise<void> {
  await root.removeAll('/run', { asLink: true });
  await root.mkdirAll('/run', 0o755);
}

/**
 * The shutdown half of a reboot: deploys the staged OS change, if any, merging /etc from the
 * booted deployment. Deployments ahead of the booted one (pending ones made by hand) are dropped
 * first, so that the booted deployment is the merge source, as it is on a real host. Returns the
 * staged record it deployed.
 */
export async function finalizeStaged(
  ostree: OstreeCli,
  layout: Pick<NodeLayout, 'sysroot' | 'repo' | 'state'>,
  view: NodeRoot,
): Promise<StagedRecord | undefined> {
  const staged = await readStaged(view);
  if (staged === undefined) return undefined;
  const booted = await readBooted(layout.state);
  if (booted !== undefined) await dropAheadOfBooted(ostree, layout.sysroot, booted);
  const originFile = posix.join(layout.state, 'staged.origin');
  await writeFile(originFile, originFileText(staged.checksum, staged.image));
  await ostree.deploy({
    sysroot: layout.sysroot,
    osname: booted?.osname ?? (await onlyOsname(view)),
    refspec: staged.checksum,
    kernelArguments: staged.kernelArguments,
    originFile,
  });
  await rm(originFile, { force: true });
  await writeStaged(view, undefined);
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

async function onlyOsname(view: NodeRoot): Promise<string> {
  const names = await view.readdir('/sysroot/ostree/deploy');
  const [first] = names;
  if (first === undefined || names.length !== 1)
    throw new Error(`cannot tell the OS of ${view.path}/sysroot: stateroots ${names.join(', ')}`);
  return first;
}

/**
 * The boot half: picks the default BLS entry, points the view at its deployment, empties /run and
 * records it as booted (with a fresh boot ID).
 */
export async function bootDefault(
  ostree: OstreeCli,
  layout: Pick<NodeLayout, 'sysroot' | 'state'>,
  view: NodeRoot,
  now: Date,
): Promise<BootedRecord> {
  const chosen = await defaultDeployment(layout.sysroot);
  if (chosen === undefined) throw new Error(`no boot entries in ${layout.sysroot}`);
  const { ref } = chosen;
  await linkRootView(view, ref.osname, ref.path);
  await clearRun(view);
  const status = await ostree.status(layout.sysroot);
  const listed = status.find((d) => d.checksum === ref.checksum && d.serial === ref.serial);
  const origin = await readOrigin(view, ref.path);
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

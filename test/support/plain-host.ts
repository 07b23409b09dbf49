/**
 * A fast Host for daemon unit tests: a plain folder as the node's `/` (the boot image's /usr/etc
 * copied to /etc and kept as /usr/etc, a `core` user), with the ostree host's real files,
 * `systemctl --root` and `usermod --root`, but an OS updater that keeps its deployments in a JSON
 * file instead of an OSTree sysroot: images are `plain:<name>` (checksum = sha256 of the name),
 * and a reboot makes the pending deployment the booted one. It passes the Host contract
 * (plain-host.test.ts), so what the daemon sees through it is what it sees on a real host.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createExecCommandRunner } from '../../src/adapters/exec-command-runner.js';
import { createOstreeHost } from '../../src/adapters/ostree-host.js';
import type { Deployment, Host, OsStatus, OsUpdater, Rebooter } from '../../src/ports/host.js';
import { makeTmpDir, type TmpDir } from './tmp-dir.js';

const RepoRoot = join(import.meta.dirname, '../..');
const BootEtc = join(RepoRoot, 'images/rootfs/testos/usr/etc');

const PlainBootImage = 'plain:boot';

export function plainChecksum(image: string): string {
  return createHash('sha256').update(image).digest('hex');
}

interface OsState {
  booted: Deployment;
  pending?: Deployment;
}

export interface PlainHost {
  readonly host: Host;
  readonly root: string;
  readonly dir: TmpDir;
  /** Reboot reasons asked for since the last call (consumed). */
  takeRebootRequests(): string[];
  /** Carries out a reboot: pending → booted, /run emptied. */
  reboot(): void;
  /** systemd actions the host recorded (reload, restart, daemon-reload). */
  systemdActions(): { action: string; unit?: string }[];
  /** Makes the next OS call fail with this message (once). */
  failNextOsCall(message: string): void;
  dispose(): void;
}

export interface PlainHostOptions {
  readonly kernelArguments?: readonly string[];
  readonly bootImage?: string;
}

export function createPlainHost(options: PlainHostOptions = {}): PlainHost {
  const dir = makeTmpDir('mco-plain-host-');
  const root = join(dir.path, 'rootfs');
  const state = join(dir.path, 'state');
  mkdirSync(join(root, 'usr'), { recursive: true });
  cpSync(BootEtc, join(root, 'usr/etc'), { recursive: true, verbatimSymlinks: true });
  cpSync(BootEtc, join(root, 'etc'), { recursive: true, verbatimSymlinks: true });
  for (const d of ['run', 'home', 'var', 'root', 'etc/systemd/system'])
    mkdirSync(join(root, d), { recursive: true });
  mkdirSync(state, { recursive: true });
  execFileSync('useradd', ['--root', root, '--create-home', 'core']);

  const osFile = join(state, 'os.json');
  const image = options.bootImage ?? PlainBootImage;
  const initial: OsState = {
    booted: {
      checksum: plainChecksum(image),
      image,
      kernelArguments: [...(options.kernelArguments ?? ['console=ttyS0'])],
    },
  };
  writeFileSync(osFile, JSON.stringify(initial));
  const read = (): OsState => JSON.parse(readFileSync(osFile, 'utf8')) as OsState;
  const write = (s: OsState): void => {
    writeFileSync(osFile, JSON.stringify(s));
  };
  let failure: string | undefined;
  const maybeFail = (): void => {
    if (failure === undefined) return;
    const message = failure;
    failure = undefined;
    throw new Error(message);
  };
  const same = (a: Deployment, b: Deployment): boolean =>
    a.checksum === b.checksum &&
    a.image === b.image &&
    JSON.stringify(a.kernelArguments) === JSON.stringify(b.kernelArguments);
  const stage = (s: OsState, next: Deployment): void => {
    write(same(next, s.booted) ? { booted: s.booted } : { booted: s.booted, pending: next });
  };

  const os: OsUpdater = {
    status(): Promise<OsStatus> {
      const s = read();
      return Promise.resolve(s.pending === undefined ? { booted: s.booted } : s);
    },
    stageImage(img) {
      maybeFail();
      if (!img.startsWith('plain:')) return Promise.reject(new Error(`unsupported image ${img}`));
      const s = read();
      const base = s.pending ?? s.booted;
      stage(s, { checksum: plainChecksum(img), image: img, kernelArguments: base.kernelArguments });
      return Promise.resolve();
    },
    updateKernelArguments(change) {
      maybeFail();
      const s = read();
      const base = s.pending ?? s.booted;
      const args = [...base.kernelArguments];
      for (const a of change.delete) {
        const i = args.indexOf(a);
        if (i >= 0) args.splice(i, 1);
      }
      stage(s, { ...base, kernelArguments: [...args, ...change.append] });
      return Promise.resolve();
    },
    cleanupPending() {
      const { booted } = read();
      write({ booted });
      return Promise.resolve();
    },
  };
  const requests: string[] = [];
  const rebooter: Rebooter = {
    reboot(reason) {
      requests.push(reason);
      return Promise.resolve();
    },
  };
  const base = createOstreeHost({
    root,
    runner: createExecCommandRunner(),
    supervisorChannel: state,
  });
  const host: Host = { ...base, os, rebooter };
  return {
    host,
    root,
    dir,
    takeRebootRequests: () => requests.splice(0),
    reboot() {
      const s = read();
      write({ booted: s.pending ?? s.booted });
      rmSync(join(root, 'run'), { recursive: true, force: true });
      mkdirSync(join(root, 'run'));
    },
    systemdActions() {
      const file = join(root, 'run/mco-host/systemd-actions.jsonl');
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => {
          const { action, unit } = JSON.parse(l) as { action: string; unit?: string };
          return unit === undefined ? { action } : { action, unit };
        });
    },
    failNextOsCall(message) {
      failure = message;
    },
    dispose() {
      dir.remove();
    },
  };
}

/**
 * The ostree Host on a plain OSTree host (`boot: 'system'`): a real sysroot deployed from the
 * repository's boot image, turned into a host that booted by itself: the root gets the booted
 * deployment's /proc/cmdline (with its `ostree=` argument) and /run/ostree-booted, and the node
 * supervisor's records are deleted. The host must find the booted deployment in the root, run
 * systemd's live actions and the reboot as the host's systemctl chrooted into the root (recorded
 * here: the boot image has no systemctl), and deploy a staged change itself before the reboot.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecCommandRunner } from '../../src/adapters/exec-command-runner.js';
import { nodeLayout, readBooted } from '../../src/adapters/ostree-boot.js';
import { createOstreeHost } from '../../src/adapters/ostree-host.js';
import { createOstreeNodeMachine } from '../../src/adapters/ostree-node-machine.js';
import { buildOstreeCommit, readModesFile } from '../../src/adapters/ostree-repo.js';
import { readBootEntries } from '../../src/adapters/ostree.js';
import type { CommandRunner } from '../../src/ports/command-runner.js';
import type { Host } from '../../src/ports/host.js';
import type { NodeMachine } from '../../src/ports/node-machine.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';

const RepoRoot = join(import.meta.dirname, '../..');
const BootTree = join(RepoRoot, 'images/rootfs/testos');
const real = createExecCommandRunner();

let work: TmpDir;
let root: string;
let sysroot: string;
let bootedChecksum: string;
let host: Host;
let machine: NodeMachine;
/** The host's chrooted commands: [root, argv after the chroot prefix]. */
const chrooted: (readonly string[])[] = [];

beforeAll(async () => {
  work = makeTmpDir('mco-ostree-system-');
  const repo = join(work.path, 'repo');
  const modes = await readModesFile(join(RepoRoot, 'images/rootfs/testos.modes.json'));
  await buildOstreeCommit({
    runner: real,
    rootfs: BootTree,
    repo,
    ref: 'testos/v1',
    version: '1',
    modes,
  });
  const dir = join(work.path, 'node');
  machine = createOstreeNodeMachine({ dir, runner: real });
  await machine.install({
    name: 'plain',
    labels: {},
    bootImage: { repo, ref: 'testos/v1' },
    kernelArguments: ['console=ttyS0'],
    pods: 0,
  });
  await machine.boot();
  const layout = nodeLayout(dir);
  root = layout.root;
  sysroot = layout.sysroot;
  bootedChecksum = (await readBooted(layout.state))?.checksum ?? '';
  // what the kernel and ostree-prepare-root leave on a host booted from that deployment
  const [entry] = await readBootEntries(sysroot);
  if (entry === undefined) throw new Error('no boot entry');
  mkdirSync(join(root, 'proc/sys/kernel/random'), { recursive: true });
  writeFileSync(
    join(root, 'proc/cmdline'),
    `BOOT_IMAGE=/vmlinuz ${entry.kernelArguments.join(' ')} ostree=${entry.ostreeTarget}\n`,
  );
  writeFileSync(
    join(root, 'proc/sys/kernel/random/boot_id'),
    'b0075e1d-0000-4000-8000-000000000001\n',
  );
  writeFileSync(join(root, 'run/ostree-booted'), '');
  // no supervisor: its records are gone
  rmSync(layout.state, { recursive: true, force: true });
  const runner: CommandRunner = {
    run(argv, options) {
      if (argv[0] === 'chroot') {
        chrooted.push([argv[1] ?? '', ...argv.slice(4)]);
        return Promise.resolve({ stdout: '', stderr: '', code: 0 });
      }
      return real.run(argv, options);
    },
  };
  host = createOstreeHost({ root, runner, boot: 'system' });
}, 180_000);

afterAll(async () => {
  await machine.destroy();
  work.remove();
});

describe('ostree host on a plain OSTree host', () => {
  it('reads the booted deployment and its kernel arguments from the root’s /proc/cmdline', async () => {
    const status = await host.os.status();
    expect(status.booted.checksum).toBe(bootedChecksum);
    expect(status.booted.version).toBe('1');
    expect(status.booted.kernelArguments).toContain('console=ttyS0');
    expect(status.booted.kernelArguments.some((a) => a.startsWith('ostree='))).toBe(false);
    expect(status.pending).toBeUndefined();
  });

  it('runs daemon-reload, restart and reload as the host’s systemctl in the root', async () => {
    await host.systemd.daemonReload();
    await host.systemd.restart('crio.service');
    await host.systemd.reload('kubelet.service');
    expect(chrooted).toEqual([
      [root, 'systemctl', 'daemon-reload'],
      [root, 'systemctl', 'restart', 'crio.service'],
      [root, 'systemctl', 'reload', 'kubelet.service'],
    ]);
    expect(existsSync(join(root, 'run/mco-host/systemd-actions.jsonl'))).toBe(false);
  });

  it('deploys a staged kernel argument change itself, then reboots through systemctl', async () => {
    chrooted.length = 0;
    await host.os.updateKernelArguments({ delete: [], append: ['nosmt'] });
    expect((await host.os.status()).pending?.kernelArguments).toContain('nosmt');
    await host.rebooter.reboot('Node will reboot into config rendered-worker-x');
    // the new deployment is the default, with the argument, /etc merged from the booted one
    const [entry] = await readBootEntries(sysroot);
    expect(entry?.kernelArguments).toContain('nosmt');
    expect(entry?.kernelArguments).toContain('console=ttyS0');
    expect(
      execFileSync('ostree', ['admin', 'status', `--sysroot=${sysroot}`], {
        encoding: 'utf8',
      }).match(/testos /g),
    ).toHaveLength(2);
    expect(chrooted).toEqual([[root, 'systemctl', 'reboot']]);
    // no supervisor channel was written
    expect(existsSync(join(work.path, 'node/state'))).toBe(false);
  });

  it('refuses a root that did not boot from a deployment', async () => {
    writeFileSync(join(root, 'proc/cmdline'), 'BOOT_IMAGE=/vmlinuz root=/dev/vda1\n');
    await expect(host.os.status()).rejects.toThrow('has no ostree=/ostree/boot.… argument');
    writeFileSync(join(root, 'proc/cmdline'), 'ostree=/ostree/boot.1/../../../../etc\n');
    await expect(host.os.status()).rejects.toThrow();
  });
});

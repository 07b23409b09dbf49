/**
 * The ostree Host against real OSTree sysroots: the Host contract (test/support/host-contract.ts) on a
 * node made from the repository's boot image (images/rootfs/testos), then what only this host has:
 * `ostree admin status --sysroot` and the BLS entries after a simulated reboot, the /etc three-way
 * merge into a new deployment, /usr/local on the stateroot's /var, symlinks resolved inside the
 * root, pending deployments made by hand, and deleting a node (immutable deployment folders).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecCommandRunner } from '../../src/adapters/exec-command-runner.js';
import { nodeLayout, readBooted } from '../../src/adapters/ostree-boot.js';
import { createOstreeHost } from '../../src/adapters/ostree-host.js';
import { createOstreeNodeMachine } from '../../src/adapters/ostree-node-machine.js';
import { buildOstreeCommit, readModesFile } from '../../src/adapters/ostree-repo.js';
import type { Host } from '../../src/ports/host.js';
import { describeHostContract, type HostContractFixture } from '../support/host-contract.js';
import type { NodeMachine } from '../../src/ports/node-machine.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';

const RepoRoot = join(import.meta.dirname, '../..');
const BootTree = join(RepoRoot, 'images/rootfs/testos');
const runner = createExecCommandRunner();
const text = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : Buffer.from(b).toString('utf8');

let work: TmpDir;
let repo: string;
let v2Checksum: string;
let nodes = 0;

/** The boot image (v1) and a v2 commit with a changed default, a new default and a new version. */
beforeAll(async () => {
  work = makeTmpDir('mco-ostree-host-');
  repo = join(work.path, 'repo');
  const modes = await readModesFile(join(RepoRoot, 'images/rootfs/testos.modes.json'));
  await buildOstreeCommit({
    runner,
    rootfs: BootTree,
    repo,
    ref: 'testos/v1',
    version: '1',
    modes,
  });
  const v2 = join(work.path, 'tree-v2');
  cpSync(BootTree, v2, { recursive: true, verbatimSymlinks: true });
  writeFileSync(join(v2, 'usr/etc/testos.conf'), 'setting=default-v2\n');
  writeFileSync(join(v2, 'usr/etc/new-in-v2.conf'), 'new=1\n');
  writeFileSync(
    join(v2, 'usr/lib/os-release'),
    'NAME="TestOS"\nID=testos\nVERSION_ID=2\nPRETTY_NAME="TestOS 2 (simulated CoreOS)"\n',
  );
  v2Checksum = (
    await buildOstreeCommit({ runner, rootfs: v2, repo, ref: 'testos/v2', version: '2', modes })
  ).checksum;
}, 120_000);

afterAll(() => {
  work.remove();
});

interface OstreeFixture extends HostContractFixture {
  readonly machine: NodeMachine;
  readonly dir: string;
}

async function makeNode(
  kernelArguments: readonly string[] = ['console=ttyS0'],
): Promise<OstreeFixture> {
  nodes += 1;
  const dir = join(work.path, `node-${nodes}`);
  const machine = createOstreeNodeMachine({ dir, runner });
  await machine.install({
    name: `node-${nodes}`,
    labels: {},
    bootImage: { repo, ref: 'testos/v1' },
    kernelArguments,
    pods: 0,
  });
  await machine.boot();
  // The user Ignition would create.
  execFileSync('useradd', ['--root', machine.root, '--create-home', 'core']);
  const host = createOstreeHost({ root: machine.root, runner });
  return {
    host,
    machine,
    dir,
    user: 'core',
    stageableImage: `ostree-local:${repo}#testos/v2`,
    get stageableChecksum() {
      return v2Checksum;
    },
    async reboot() {
      await machine.shutdown();
      await machine.boot();
    },
    async takeRebootRequest() {
      return (await machine.takeRebootRequest())?.reason;
    },
    async dispose() {
      await machine.destroy();
    },
  };
}

describeHostContract('ostree host', () => makeNode());

function ostreeStatus(sysroot: string): string {
  return execFileSync('ostree', ['admin', 'status', `--sysroot=${sysroot}`], { encoding: 'utf8' });
}

function bootEntries(sysroot: string): string[] {
  const dir = join(sysroot, 'boot/loader/entries');
  return execFileSync('sh', ['-c', `cat ${dir}/*.conf`], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.startsWith('options ') || l.startsWith('version '));
}

describe('ostree host: what only OSTree shows', () => {
  let f: OstreeFixture;
  let host: Host;
  let sysroot: string;
  let bootedV1: string;

  beforeAll(async () => {
    f = await makeNode(['console=ttyS0', 'console=tty0']);
    host = f.host;
    sysroot = nodeLayout(f.dir).sysroot;
    bootedV1 = (await host.os.status()).booted.checksum;
  }, 120_000);
  afterAll(async () => {
    await f.dispose();
  });

  it('the root is the booted deployment: etc and usr entries link into it, /var into the stateroot', async () => {
    const booted = await readBooted(nodeLayout(f.dir).state);
    expect(booted).toMatchObject({ osname: 'testos', checksum: bootedV1, serial: 0, version: '1' });
    expect(readlinkSync(join(f.machine.root, 'etc'))).toBe(
      `sysroot/${booted?.deployment ?? ''}/etc`,
    );
    expect(readlinkSync(join(f.machine.root, 'usr/bin'))).toBe(
      `../sysroot/${booted?.deployment ?? ''}/usr/bin`,
    );
    expect(readlinkSync(join(f.machine.root, 'usr/local'))).toBe('../var/usrlocal');
    expect(readlinkSync(join(f.machine.root, 'var'))).toBe('sysroot/ostree/deploy/testos/var');
    expect(decode(await host.files.read('/usr/bin/hello'))).toBe(
      '#!/bin/sh\necho "hello from TestOS 1"\n',
    );
  });

  it('isPackageOwned: /etc files the image ships under /usr/etc', async () => {
    expect(await host.files.isPackageOwned('/etc/testos.conf')).toBe(true);
    expect(await host.files.isPackageOwned('/etc/passwd')).toBe(true);
    expect(await host.files.isPackageOwned('/etc/mine.conf')).toBe(false);
    expect(await host.files.isPackageOwned('/var/lib/x')).toBe(false);
  });

  it('absolute symlinks resolve inside the root, never on this machine', async () => {
    await host.files.writeAtomic('/var/lib/contract/target.conf', text('on the node\n'), {
      mode: 0o644,
    });
    await host.files.symlink('/var/lib/contract/target.conf', '/etc/abs-link.conf');
    expect(decode(await host.files.read('/etc/abs-link.conf'))).toBe('on the node\n');
    expect(host.files.hostPath('/etc/abs-link.conf')).toBe(
      join(sysroot, 'ostree/deploy/testos/var/lib/contract/target.conf'),
    );
    await host.files.symlink('../../../../../../etc/passwd', '/etc/climb.conf');
    expect(decode(await host.files.read('/etc/climb.conf'))).toContain('core:x:1000:');
    // /etc is a link into the deployment, but `..` from /etc is / on the node (resolv.conf style).
    await host.files.writeAtomic('/run/contract/stub.conf', text('in /run\n'), { mode: 0o644 });
    await host.files.symlink('../run/contract/stub.conf', '/etc/relative-out.conf');
    expect(decode(await host.files.read('/etc/relative-out.conf'))).toBe('in /run\n');
    expect(await host.files.stat('/etc')).toMatchObject({ kind: 'directory' });
  });

  it('restart, reload and daemon-reload are recorded in /run (systemd is not running)', async () => {
    await host.systemd.restart('crio.service');
    await host.systemd.reload('crio.service');
    await host.systemd.daemonReload();
    const log = decode(await host.files.read('/run/mco-host/systemd-actions.jsonl')) ?? '';
    expect(
      log
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { action: string; unit?: string }),
    ).toMatchObject([
      { action: 'restart', unit: 'crio.service' },
      { action: 'reload', unit: 'crio.service' },
      { action: 'daemon-reload' },
    ]);
  });

  it('a staged OS update with new kernel arguments: ostree admin status and the BLS entries after the reboot', async () => {
    // Local /etc state before the update: a shipped default edited, a file added, one removed.
    await host.files.writeAtomic('/etc/testos.conf', text('setting=LOCAL\n'), { mode: 0o644 });
    await host.files.writeAtomic('/etc/added-locally.conf', text('x=1\n'), { mode: 0o600 });
    await host.files.remove('/etc/hostname');
    await host.files.writeAtomic('/usr/local/bin/tool', text('#!/bin/sh\n'), { mode: 0o755 });

    await host.os.stageImage(`ostree-local:${repo}#testos/v2`);
    await host.os.updateKernelArguments({ delete: ['console=tty0'], append: ['mco.test=1'] });
    // Written after staging: a real staged deployment merges /etc at shutdown, so this is kept.
    await host.files.writeAtomic('/etc/machine-config-daemon/currentconfig', text('{}'), {
      mode: 0o644,
    });
    expect(ostreeStatus(sysroot)).not.toContain(v2Checksum);
    await f.reboot();

    const status = ostreeStatus(sysroot);
    expect(status).toBe(
      `  testos ${v2Checksum}.0\n    Version: 2\n    origin refspec: ${v2Checksum}\n` +
        `  testos ${bootedV1}.0\n    Version: 1\n    origin refspec: testos/v1\n`,
    );
    const entries = bootEntries(sysroot);
    expect(entries).toContain('version 2');
    expect(
      entries.find((l) => l.startsWith('options console=ttyS0 mco.test=1 ostree=')),
    ).toBeDefined();
    expect(await readBooted(nodeLayout(f.dir).state)).toMatchObject({
      checksum: v2Checksum,
      serial: 0,
      version: '2',
      kernelArguments: ['console=ttyS0', 'mco.test=1'],
      image: `ostree-local:${repo}#testos/v2`,
    });
    expect((await host.os.status()).booted).toEqual({
      checksum: v2Checksum,
      image: `ostree-local:${repo}#testos/v2`,
      version: '2',
      kernelArguments: ['console=ttyS0', 'mco.test=1'],
      extensions: [],
    });
  });

  it('/etc was merged three ways into the new deployment; /usr/local lives on /var', async () => {
    expect(decode(await host.files.read('/etc/testos.conf'))).toBe('setting=LOCAL\n');
    expect(decode(await host.files.read('/etc/added-locally.conf'))).toBe('x=1\n');
    expect((await host.files.stat('/etc/added-locally.conf'))?.mode).toBe(0o600);
    expect(await host.files.stat('/etc/hostname')).toBeUndefined();
    expect(decode(await host.files.read('/etc/new-in-v2.conf'))).toBe('new=1\n');
    expect(decode(await host.files.read('/etc/machine-config-daemon/currentconfig'))).toBe('{}');
    expect(decode(await host.files.read('/usr/local/bin/tool'))).toBe('#!/bin/sh\n');
    expect(decode(await host.files.read('/etc/os-release'))).toContain('VERSION_ID=2');
    expect(await host.files.lookupUser('core')).toMatchObject({ uid: 1000 });
  });

  it('cleanupPending also drops a deployment made by hand ahead of the booted one', async () => {
    execFileSync('ostree', [
      'admin',
      'deploy',
      `--sysroot=${sysroot}`,
      '--os=testos',
      '--karg-none',
      '--karg-append=by-hand=1',
      bootedV1,
    ]);
    const pending = (await host.os.status()).pending;
    expect(pending).toEqual({
      checksum: bootedV1,
      version: '1',
      kernelArguments: ['by-hand=1'],
      extensions: [],
    });
    await host.os.cleanupPending();
    expect((await host.os.status()).pending).toBeUndefined();
    expect(ostreeStatus(sysroot).split('\n')[0]).toBe(`  testos ${v2Checksum}.0`);
  });

  it('a reboot with nothing staged boots the same deployment again with a new boot ID', async () => {
    const before = await readBooted(nodeLayout(f.dir).state);
    await host.files.writeAtomic('/run/scratch', text('gone after reboot'), { mode: 0o644 });
    await f.reboot();
    const after = await readBooted(nodeLayout(f.dir).state);
    expect(after?.checksum).toBe(before?.checksum);
    expect(after?.serial).toBe(before?.serial);
    expect(after?.bootId).not.toBe(before?.bootId);
    expect(await host.files.stat('/run/scratch')).toBeUndefined();
  });

  it('destroy removes the node folder despite the immutable deployment folders', async () => {
    const g = await makeNode();
    expect(
      execFileSync(
        'lsattr',
        [
          '-d',
          join(
            nodeLayout(g.dir).sysroot,
            (await readBooted(nodeLayout(g.dir).state))?.deployment ?? '',
          ),
        ],
        { encoding: 'utf8' },
      ),
    ).toMatch(/^-*i/);
    await g.dispose();
    expect(existsSync(g.dir)).toBe(false);
  });

  it('the boot image modes file made /etc/shadow 0640', () => {
    expect(readFileSync(join(f.machine.root, 'etc/passwd'), 'utf8')).toContain('root:x:0:0');
    expect(
      execFileSync('stat', ['-c', '%a', join(f.machine.root, 'usr/etc/shadow')], {
        encoding: 'utf8',
      }).trim(),
    ).toBe('640');
  });
});

describe('ostree host: going back to the image a kept deployment came from', () => {
  it('stages the kept commit without pulling (its source is gone) and merges /etc from the booted deployment', async () => {
    // GIVEN a node booted from v1 out of a source repository of its own, updated to v2
    const source = join(work.path, 'v1-source');
    execFileSync('ostree', ['init', `--repo=${source}`, '--mode=archive']);
    execFileSync('ostree', [`--repo=${source}`, 'pull-local', repo, 'testos/v1']);
    const v1Image = `ostree-local:${source}#testos/v1`;
    const v2Image = `ostree-local:${repo}#testos/v2`;
    nodes += 1;
    const dir = join(work.path, `node-${nodes}`);
    const machine = createOstreeNodeMachine({ dir, runner });
    await machine.install({
      name: `node-${nodes}`,
      labels: {},
      bootImage: { repo: source, ref: 'testos/v1', image: v1Image },
      kernelArguments: ['console=ttyS0'],
      pods: 0,
    });
    await machine.boot();
    const host = createOstreeHost({ root: machine.root, runner });
    const sysroot = nodeLayout(dir).sysroot;
    try {
      const v1 = (await host.os.status()).booted.checksum;
      await host.os.stageImage(v2Image);
      await machine.shutdown();
      await machine.boot();
      expect((await host.os.status()).booted).toMatchObject({
        checksum: v2Checksum,
        image: v2Image,
      });
      // WHEN the v1 image's source is gone and the node goes back to v1, writing a file first
      execFileSync('rm', ['-rf', source]);
      await host.os.prefetchImage?.(v1Image);
      await host.os.stageImage(v1Image);
      await host.files.writeAtomic('/etc/reverted.conf', text('back=1\n'), { mode: 0o644 });
      expect((await host.os.status()).pending).toMatchObject({ checksum: v1, image: v1Image });
      await machine.shutdown();
      await machine.boot();
      // THEN it boots the v1 commit again, with the /etc written on v2, and v2 kept behind it
      expect(await readBooted(nodeLayout(dir).state)).toMatchObject({
        checksum: v1,
        version: '1',
        image: v1Image,
      });
      expect(decode(await host.files.read('/etc/reverted.conf'))).toBe('back=1\n');
      expect(decode(await host.files.read('/etc/os-release'))).toContain('VERSION_ID=1');
      const status = ostreeStatus(sysroot)
        .split('\n')
        .filter((l) => /^ {2}testos /.test(l));
      expect(status).toEqual([`  testos ${v1}.1`, `  testos ${v2Checksum}.0`]);
      // An image no deployment came from is still pulled, and fails without its source.
      await expect(host.os.stageImage(`ostree-local:${source}#testos/v1-other`)).rejects.toThrow();
    } finally {
      await machine.destroy();
    }
  }, 180_000);
});

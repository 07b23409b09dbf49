import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedFilePaths } from '../logic/nodeplan/config-diffs.js';
import { kernelArgumentChange } from '../logic/nodeplan/kernel-arguments.js';
import { calculateLegacyPostConfigChangeAction } from '../logic/nodeplan/legacy-post-config-action.js';
import { machineConfigDiff } from '../logic/nodeplan/machine-config-diff.js';
import { postConfigSteps, type PostConfigStep } from '../logic/nodeplan/post-config-steps.js';
import { D3, d3Config } from '../../test/support/nodeplan-d3-vectors.js';
import { type CommandResult, type CommandRunner } from '../ports/command-runner.js';
import { commandLine } from '../lib/command-line.js';
import {
  createCoreosHost,
  imageOfReference,
  parseRpmOstreeStatus,
  type CoreosHost,
} from './coreos-host.js';
import { HostPath } from './chroot-command-runner.js';
import { createExecCommandRunner } from './exec-command-runner.js';

/** Upstream's mock CommandRunner: canned results keyed by `cmd arg1 arg2`, every call recorded. */
function recordingRunner(canned: Readonly<Record<string, Partial<CommandResult>>> = {}) {
  const calls: (readonly string[])[] = [];
  const runner: CommandRunner = {
    run(argv) {
      calls.push([...argv]);
      return Promise.resolve({ stdout: '', stderr: '', code: 0, ...canned[commandLine(argv)] });
    },
  };
  return { runner, calls, lines: () => calls.map(commandLine) };
}

// docs/reference/vectors.md §D1: the exact `rpm-ostree kargs` command line for each case.
const D1: readonly (readonly [string[], string[], string])[] = [
  [[], ['hello=world'], 'rpm-ostree kargs --append=hello=world'],
  [['hello=world'], [], 'rpm-ostree kargs --delete-if-present=hello=world'],
  [
    ['foo', 'bar=1', 'hello=world'],
    ['hello=world'],
    'rpm-ostree kargs --delete-if-present=foo --delete-if-present=bar=1 --delete-if-present=hello=world --append=hello=world',
  ],
  [
    ['foo', 'bar=1 hello=world', 'baz'],
    ['foo', 'bar=1', 'hello=world'],
    'rpm-ostree kargs --delete-if-present=foo --delete-if-present=bar=1 --delete-if-present=hello=world --delete-if-present=baz --append=foo --append=bar=1 --append=hello=world',
  ],
  [
    [' baz=test bar="hello world"'],
    [' baz=test bar="hello world"', 'foo'],
    'rpm-ostree kargs --delete-if-present=baz=test --delete-if-present=bar="hello world" --append=baz=test --append=bar="hello world" --append=foo',
  ],
  [
    ['hugepagesz=1G hugepages=4', 'hugepagesz=2M hugepages=4'],
    ['hugepagesz=1G hugepages=4', 'hugepagesz=2M hugepages=6'],
    'rpm-ostree kargs --delete-if-present=hugepagesz=1G --delete-if-present=hugepages=4 --delete-if-present=hugepagesz=2M --delete-if-present=hugepages=4 --append=hugepagesz=1G --append=hugepages=4 --append=hugepagesz=2M --append=hugepages=6',
  ],
];

describe('coreos host: vector D1 command lines', () => {
  it.each(D1)('%j → %j', async (oldArgs, newArgs, expected) => {
    // GIVEN a CoreOS host whose commands are recorded
    const { runner, calls, lines } = recordingRunner();
    const host = createCoreosHost({ runner });
    // WHEN the kernel arguments change
    await host.os.updateKernelArguments(kernelArgumentChange(oldArgs, newArgs));
    // THEN exactly one rpm-ostree command runs, with upstream's arguments as separate argv entries
    expect(lines()).toEqual([expected]);
    expect(calls[0]).toEqual([
      'rpm-ostree',
      'kargs',
      ...expected.slice('rpm-ostree kargs '.length).split(/ (?=--)/),
    ]);
  });

  it('runs nothing when the kargs flag of the diff is false', async () => {
    const { runner, lines } = recordingRunner();
    await createCoreosHost({ runner }).os.updateKernelArguments(kernelArgumentChange(['a'], ['a']));
    expect(lines()).toEqual([]);
  });
});

/** The daemon's loop over the steps, reduced to the Host calls each step makes. */
async function perform(host: CoreosHost, steps: readonly PostConfigStep[]): Promise<void> {
  for (const step of steps) {
    switch (step.kind) {
      case 'reboot':
        await host.rebooter.reboot(step.reason);
        return;
      case 'reload':
        await host.systemd.reload(step.unit);
        break;
      case 'restart':
        await host.systemd.restart(step.unit);
        break;
      case 'daemonReload':
        await host.systemd.daemonReload();
        break;
      case 'updateCaTrust':
        await host.updateCaTrust();
        break;
      case 'skipReboot':
      case 'drained':
        break;
    }
  }
}

const rebootArgv = [
  'systemd-run',
  '--unit',
  'machine-config-daemon-reboot',
  '--description',
  'machine-config-daemon: Node will reboot into config new',
  '-p',
  'Requires=ostree-finalize-staged.service',
  '-p',
  'After=ostree-finalize-staged.service',
  '/bin/sh',
  '-c',
  'systemctl reboot',
];

const commandsFor: Readonly<Record<string, readonly (readonly string[])[]>> = {
  reboot: [rebootArgv],
  none: [],
  'reload crio': [['systemctl', 'reload', 'crio']],
  'restart crio': [['update-ca-trust'], ['systemctl', 'restart', 'crio']],
};

describe('coreos host: vector D3 command lines', () => {
  it.each(D3)('%s → %j', async (_name, oldSide, newSide, expectedActions) => {
    // GIVEN the D3 configs and the legacy (firstboot) action they call for
    const oldConfig = d3Config('old', oldSide);
    const newConfig = d3Config('new', newSide);
    const diff = machineConfigDiff(oldConfig, newConfig, { forceFile: false });
    const actions = calculateLegacyPostConfigChangeAction(
      diff,
      changedFilePaths(oldConfig.ignition, newConfig.ignition),
      false,
    );
    expect(actions).toEqual(expectedActions);
    // WHEN the actions are performed on a CoreOS host
    const { runner, calls } = recordingRunner();
    await perform(
      createCoreosHost({ runner }),
      postConfigSteps({ kind: 'legacy', actions }, 'new'),
    );
    // THEN the host runs exactly these commands
    expect(calls).toEqual(commandsFor[expectedActions[0] ?? '']);
  });

  it('policy actions: Special reloads crio, CA trust restarts, daemon-reload', async () => {
    const { runner, lines } = recordingRunner();
    await perform(
      createCoreosHost({ runner }),
      postConfigSteps(
        {
          kind: 'policies',
          actions: [
            { type: 'Special' },
            { type: 'Restart', restart: { serviceName: 'coreos-update-ca-trust.service' } },
            { type: 'DaemonReload' },
            { type: 'Reload', reload: { serviceName: 'kubelet.service' } },
          ],
        },
        'new',
      ),
    );
    expect(lines()).toEqual([
      'systemctl reload crio',
      'systemctl restart coreos-update-ca-trust.service',
      'systemctl daemon-reload',
      'systemctl reload kubelet.service',
    ]);
  });
});

const statusJson = JSON.stringify({
  deployments: [
    {
      id: 'rhcos-def.0',
      checksum: 'def',
      version: '418.94.2',
      booted: false,
      staged: true,
      'container-image-reference': 'ostree-unverified-registry:quay.io/ocp@sha256:new',
      'requested-base-removals': [],
      'requested-packages': [],
    },
    {
      id: 'rhcos-abc.0',
      checksum: 'abc',
      version: '418.94.1',
      booted: true,
      'container-image-reference': 'ostree-unverified-registry:quay.io/ocp@sha256:old',
      'requested-base-removals': ['kernel', 'kernel-core', 'dracut'],
      'requested-packages': ['kernel-rt-core', 'usbguard'],
    },
  ],
});

describe('coreos host: rpm-ostree', () => {
  const canned = {
    'rpm-ostree status --json': { stdout: statusJson },
    'rpm-ostree kargs --deploy-index=0': { stdout: 'root=UUID=1 rw nosmt foo="a b"\n' },
    'rpm-ostree kargs --deploy-index=1': { stdout: 'root=UUID=1 rw\n' },
  };

  it('reads the booted and the staged deployment with their kernel arguments', async () => {
    const { runner, lines } = recordingRunner(canned);
    const status = await createCoreosHost({ runner }).os.status();
    expect(status).toEqual({
      booted: {
        checksum: 'abc',
        image: 'quay.io/ocp@sha256:old',
        version: '418.94.1',
        kernelArguments: ['root=UUID=1', 'rw'],
        extensions: ['usbguard'],
      },
      pending: {
        checksum: 'def',
        image: 'quay.io/ocp@sha256:new',
        version: '418.94.2',
        kernelArguments: ['root=UUID=1', 'rw', 'nosmt', 'foo="a b"'],
        extensions: [],
      },
    });
    expect(lines()).toEqual([
      'rpm-ostree status --json',
      'rpm-ostree kargs --deploy-index=0',
      'rpm-ostree kargs --deploy-index=1',
    ]);
  });

  it('rebases, cleans up, and swaps kernels with upstream’s commands', async () => {
    const { runner, lines } = recordingRunner(canned);
    const host = createCoreosHost({ runner, arch: 'amd64' });
    await host.os.cleanupPending();
    await host.os.stageImage('quay.io/ocp@sha256:new');
    await host.os.revertKernelSwap();
    await host.os.switchKernel('realtime');
    await host.os.switchKernel('default');
    expect(lines()).toEqual([
      'rpm-ostree cleanup -p',
      'rpm-ostree rebase --experimental ostree-unverified-registry:quay.io/ocp@sha256:new',
      'rpm-ostree status --json',
      'rpm-ostree override reset kernel kernel-core --uninstall kernel-rt-core',
      'rpm-ostree override remove kernel kernel-core kernel-modules kernel-modules-core kernel-modules-extra --install kernel-rt-core --install kernel-rt-modules --install kernel-rt-modules-extra',
    ]);
    await expect(host.os.switchKernel('64k-pages')).rejects.toThrow(
      '64k-pages is only supported for aarch64 architecture',
    );
  });

  it('fails with upstream’s runCmdSync text', async () => {
    const { runner } = recordingRunner({
      'rpm-ostree cleanup -p': { code: 1, stderr: 'error: busy' },
    });
    await expect(createCoreosHost({ runner }).os.cleanupPending()).rejects.toThrow(
      'error running rpm-ostree cleanup -p: error: busy: exit status 1',
    );
  });

  it('parses status and image references', () => {
    expect(parseRpmOstreeStatus(statusJson).map((d) => [d.checksum, d.booted, d.staged])).toEqual([
      ['def', false, true],
      ['abc', true, false],
    ]);
    expect(imageOfReference('ostree-unverified-registry:quay.io/a@sha256:x')).toBe(
      'quay.io/a@sha256:x',
    );
    expect(imageOfReference(undefined)).toBeUndefined();
  });
});

describe('coreos host: systemd, users, reboot', () => {
  it('issues systemctl commands and maps is-enabled output', async () => {
    const { runner, lines } = recordingRunner({
      'systemctl is-enabled a.service': { stdout: 'enabled\n' },
      'systemctl is-enabled b.service': { stdout: 'disabled\n', code: 1 },
      'systemctl is-enabled c.service': { stdout: 'masked\n', code: 1 },
      'systemctl is-enabled d.service': {
        stderr: 'Failed to get unit file state for d.service: No such file or directory\n',
        code: 1,
      },
      'systemctl is-enabled e.service': { stdout: 'indirect\n' },
    });
    const host = createCoreosHost({ runner });
    const states = [];
    for (const u of ['a', 'b', 'c', 'd', 'e'])
      states.push(await host.systemd.isEnabled(`${u}.service`));
    expect(states).toEqual(['enabled', 'disabled', 'masked', 'not-found', 'other']);
    await host.systemd.enable(['a.service', 'b.service']);
    await host.systemd.disable(['c.service']);
    await host.systemd.preset('d.service');
    expect(lines().slice(5)).toEqual([
      'systemctl enable a.service b.service',
      'systemctl disable c.service',
      'systemctl preset d.service',
    ]);
  });

  it('reports systemctl failures with upstream’s texts', async () => {
    const { runner } = recordingRunner({
      'systemctl enable x.service': {
        code: 1,
        stderr: 'Failed to enable unit: Unit file x.service does not exist.\n',
      },
      'systemctl preset y.service': { code: 1, stderr: 'nope' },
    });
    const host = createCoreosHost({ runner });
    await expect(host.systemd.enable(['x.service'])).rejects.toThrow(
      'error enabling units: Failed to enable unit: Unit file x.service does not exist.\n',
    );
    await expect(host.systemd.preset('y.service')).rejects.toThrow(
      'error running preset on unit: nope',
    );
  });

  it('reads the shadow hash with getent and sets it with usermod', async () => {
    const { runner, lines } = recordingRunner({
      'getent shadow core': { stdout: 'core:$6$abc:19000:0:99999:7:::\n' },
      'getent shadow ghost': { code: 2 },
    });
    const host = createCoreosHost({ runner });
    expect(await host.users.passwordHash('core')).toBe('$6$abc');
    expect(await host.users.passwordHash('ghost')).toBeUndefined();
    await host.users.setPasswordHash('core', '*');
    expect(lines().at(-1)).toBe('usermod -p * core');
  });

  it('reboots through systemd-run, and says so when that fails', async () => {
    const { runner, calls } = recordingRunner();
    await createCoreosHost({ runner }).rebooter.reboot('Node will reboot into config new');
    expect(calls).toEqual([rebootArgv]);
    const failing = recordingRunner({ [commandLine(rebootArgv)]: { code: 1 } });
    await expect(
      createCoreosHost({ runner: failing.runner }).rebooter.reboot(
        'Node will reboot into config new',
      ),
    ).rejects.toThrow('reboot command failed, something is seriously wrong');
  });
});

describe('coreos host: files (real filesystem under a temp root)', () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'coreos-host-'));
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('writes atomically with the mode, creating parents, leaving no temp file', async () => {
    // GIVEN a host rooted in a temp directory
    const host = createCoreosHost({ runner: recordingRunner().runner, root });
    // WHEN a file is written twice with a restrictive mode
    await host.files.writeAtomic('/etc/deep/dir/secret', new TextEncoder().encode('v1'), {
      mode: 0o600,
    });
    await host.files.writeAtomic('/etc/deep/dir/secret', new TextEncoder().encode('v2'), {
      mode: 0o640,
    });
    // THEN the last content and mode are in place and only the file is in its directory
    expect(await fs.readFile(path.join(root, 'etc/deep/dir/secret'), 'utf8')).toBe('v2');
    expect(await host.files.stat('/etc/deep/dir/secret')).toMatchObject({
      kind: 'file',
      mode: 0o640,
    });
    expect(await host.files.list('/etc/deep/dir')).toEqual(['secret']);
    expect(new TextDecoder().decode(await host.files.read('/etc/deep/dir/secret'))).toBe('v2');
  });

  it('symlinks over a file, removes, and treats missing paths calmly', async () => {
    const host = createCoreosHost({ runner: recordingRunner().runner, root });
    await host.files.writeAtomic('/etc/systemd/system/m.service', new Uint8Array([1]), {
      mode: 0o644,
    });
    await host.files.symlink('/dev/null', '/etc/systemd/system/m.service');
    expect(await host.files.stat('/etc/systemd/system/m.service')).toMatchObject({
      kind: 'symlink',
      linkTarget: '/dev/null',
    });
    await host.files.remove('/etc/systemd/system/m.service');
    await host.files.remove('/etc/systemd/system/m.service');
    expect(await host.files.stat('/etc/systemd/system/m.service')).toBeUndefined();
    expect(await host.files.read('/nope')).toBeUndefined();
    expect(await host.files.list('/nope')).toEqual([]);
    await host.files.removeTree('/etc/systemd');
    expect(await host.files.stat('/etc/systemd')).toBeUndefined();
  });

  it('looks users and groups up in the root’s passwd and group files', async () => {
    await fs.mkdir(path.join(root, 'etc'));
    await fs.writeFile(
      path.join(root, 'etc/passwd'),
      'root:x:0:0:root:/root:/bin/bash\ncore:x:1000:1000:CoreOS Admin:/var/home/core:/bin/bash\n',
    );
    await fs.writeFile(path.join(root, 'etc/group'), 'root:x:0:\nwheel:x:10:core\n');
    const host = createCoreosHost({ runner: recordingRunner().runner, root });
    expect(await host.files.lookupUser('core')).toEqual({
      uid: 1000,
      gid: 1000,
      home: '/var/home/core',
    });
    expect(await host.files.lookupUser('nobody2')).toBeUndefined();
    expect(await host.files.lookupGroup('wheel')).toBe(10);
    expect(host.files.hostPath('/etc/passwd')).toBe(path.join(root, 'etc/passwd'));
    expect(await host.fipsEnabled()).toBe(false);
  });

  it('asks rpm who owns a file and copies with cp -a through the resolved folders', async () => {
    const { runner: recording, calls } = recordingRunner({
      'rpm -qf /etc/chrony.conf': { stdout: 'chrony-4.5-1.el9.x86_64\n' },
      'rpm -qf /etc/mine': { stdout: 'file /etc/mine is not owned by any package\n', code: 1 },
      'rpm -qf /etc/weird': { stderr: 'rpmdb broken\n', code: 2 },
    });
    const real = createExecCommandRunner();
    // rpm runs chrooted into the root (its prefix is checked and dropped for the canned keys)
    const runner: CommandRunner = {
      async run(argv, options) {
        if (argv[0] === 'cp') {
          await recording.run(argv, options);
          return real.run(argv, options);
        }
        expect(argv.slice(0, 2)).toEqual(['chroot', root]);
        return recording.run(argv.slice(4), options);
      },
    };
    const host = createCoreosHost({ runner, root });
    expect(await host.files.isPackageOwned('/etc/chrony.conf')).toBe(true);
    expect(await host.files.isPackageOwned('/etc/mine')).toBe(false);
    await expect(host.files.isPackageOwned('/etc/weird')).rejects.toThrow(
      'command "rpm -qf /etc/weird" returned with unexpected error: rpmdb broken\n: exit status 2',
    );
    await fs.mkdir(path.join(root, 'etc'), { recursive: true });
    await fs.writeFile(path.join(root, 'etc/chrony.conf'), 'pool x\n');
    // a link planted where the backup goes points out of the root: it is followed inside it
    await fs.mkdir(path.join(root, 'etc/machine-config-daemon'), { recursive: true });
    await fs.symlink('/../../../../backups', path.join(root, 'etc/machine-config-daemon/orig'));
    await host.files.copy(
      '/etc/chrony.conf',
      '/etc/machine-config-daemon/orig/etc/chrony.conf.mcdorig',
    );
    // cp -a copies from the held source folder into a temp file of the held target folder
    expect(calls.at(-1)).toEqual([
      'cp',
      '-a',
      '--reflink=auto',
      expect.stringMatching(/^\/proc\/\d+\/fd\/\d+\/chrony\.conf$/),
      expect.stringMatching(/^\/proc\/\d+\/fd\/\d+\/\.chrony\.conf\.mcdorig\.[0-9a-f]{12}\.tmp$/),
    ]);
    expect(await fs.readFile(path.join(root, 'backups/etc/chrony.conf.mcdorig'), 'utf8')).toBe(
      'pool x\n',
    );
    expect(await fs.readdir(path.join(root, 'backups/etc'))).toEqual(['chrony.conf.mcdorig']);
  });

  it('copies for real with the exec runner, keeping the mode', async () => {
    const host = createCoreosHost({ runner: createExecCommandRunner(), root });
    await host.files.writeAtomic('/etc/a', new TextEncoder().encode('x'), { mode: 0o600 });
    await host.files.copy('/etc/a', '/etc/backup/a.mcdorig');
    expect(await host.files.stat('/etc/backup/a.mcdorig')).toMatchObject({
      kind: 'file',
      mode: 0o600,
    });
  });
});

describe('coreos host: commands in the host root', () => {
  it('chroots every host command into the root, not the file copy', async () => {
    // GIVEN a CoreOS host rooted at /rootfs (the daemon's pod) whose commands are recorded
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'coreos-chroot-'));
    try {
      const { runner: recording, calls } = recordingRunner();
      const real = createExecCommandRunner();
      const runner: CommandRunner = {
        async run(argv, options) {
          const canned = await recording.run(argv, options);
          return argv[0] === 'cp' ? real.run(argv, options) : canned;
        },
      };
      const host = createCoreosHost({ runner, root });
      await host.files.writeAtomic('/etc/a', new Uint8Array([1]), { mode: 0o644 });
      // WHEN it runs systemd, user, OS and copy operations
      await host.systemd.enable(['kubelet.service']);
      await host.users.setPasswordHash('core', '*');
      await host.os.cleanupPending();
      await host.files.copy('/etc/a', '/etc/b');
      // THEN the host's programs run chrooted into the root, cp runs here on held folders
      const prefix = ['chroot', root, '/usr/bin/env', `PATH=${HostPath}`];
      expect(calls.slice(0, 3)).toEqual([
        [...prefix, 'systemctl', 'enable', 'kubelet.service'],
        [...prefix, 'usermod', '-p', '*', 'core'],
        [...prefix, 'rpm-ostree', 'cleanup', '-p'],
      ]);
      expect(calls[3]?.slice(0, 3)).toEqual(['cp', '-a', '--reflink=auto']);
      expect(await fs.readFile(path.join(root, 'etc/b'))).toEqual(Buffer.from([1]));
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});

/**
 * update(old, new) against a real folder root through the plain host (which passes the Host
 * contract): what lands on disk for files, units, dropins, SSH keys, passwords and kernel
 * arguments; rebootless actions; backups and stale data; rollback after a failed write (the disk
 * snapshot is exactly the old one); unreconcilable configs write nothing; an update stopped at a
 * journaled step resumes to the new config or rolls back to the old one, never a mix.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import { parseNodeConfig } from '../logic/nodeplan/node-config.js';
import { createPlainHost, type PlainHost } from '../../test/support/plain-host.js';
import { file, mc, snapshot, snapshotDiff, stopAt } from '../../test/support/daemon-fixtures.js';
import { noCrashPoints, type CrashPoints } from './crash-points.js';
import { readCurrentConfig } from './current-config.js';
import { DaemonError, FailureKind } from './daemon-errors.js';
import type { DaemonEvents } from './daemon-events.js';
import { noDaemonMetrics } from '../ports/daemon-metrics.js';
import type { ClusterNode } from './cluster-node.js';
import { checkOnDiskState } from './on-disk-state.js';
import { JournalPhase } from './update-journal.js';
import { Updater } from './updater.js';

const clock = { now: () => Date.now(), sleep: () => Promise.resolve() };

/** The disk, minus the backups usermod keeps of the files it rewrites. */
const disk = (root: string) => {
  const s = snapshot(root);
  for (const k of ['/etc/passwd-', '/etc/shadow-', '/etc/group-', '/etc/gshadow-']) s.delete(k);
  return s;
};

let hosts: PlainHost[] = [];
afterEach(() => {
  for (const h of hosts) {
    const locked = join(h.root, 'etc/locked');
    if (existsSync(locked)) execFileSync('chattr', ['-i', locked]);
    h.dispose();
  }
  hosts = [];
});

function recorder(): DaemonEvents & { readonly seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    emit(type, reason, message) {
      seen.push(`${type} ${reason}: ${message}`);
      return Promise.resolve();
    },
  };
}

function setup(kernelArguments: readonly string[] = ['console=ttyS0']) {
  const p = createPlainHost({ kernelArguments });
  hosts.push(p);
  const events = recorder();
  const updater = (crash: CrashPoints = noCrashPoints) =>
    new Updater({
      host: p.host,
      log: silentLogger,
      clock,
      events,
      metrics: noDaemonMetrics,
      crash,
      nodeName: 'worker-0',
      stopRequested: () => false,
    });
  const read = (path: string) => readFileSync(join(p.root, path), 'utf8');
  const stat = (path: string) => statSync(join(p.root, path));
  const exists = (path: string) => existsSync(join(p.root, path));
  /** Puts the node on `config` as a finished update would, rebooting if it asks. */
  const onConfig = async (config: MachineConfig) => {
    const empty = mc('mco-empty-mc', {});
    await updater().update(empty, config, { firstBoot: true });
    p.reboot();
    await updater().journal.clear();
    p.takeRebootRequests();
  };
  return { p, events, updater, read, stat, exists, onConfig };
}

const unit = (name: string) =>
  `[Unit]\nDescription=${name}\n\n[Service]\nType=oneshot\nExecStart=/usr/bin/true\n\n[Install]\nWantedBy=multi-user.target\n`;

const base = mc('rendered-worker-1', { storage: { files: [file('/etc/existing.conf', 'a\n')] } });

describe('update(old, new)', () => {
  it('writes files, a unit with a dropin, SSH keys and a kernel argument, then asks for a reboot', async () => {
    const { p, updater, read, stat, exists, onConfig, events } = setup();
    await onConfig(base);
    const next = mc(
      'rendered-worker-2',
      {
        storage: {
          files: [
            file('/etc/existing.conf', 'a\n'),
            file('/etc/mco-test/new.conf', 'hello\n', 0o640),
          ],
        },
        systemd: {
          units: [
            {
              name: 'mco-test.service',
              enabled: true,
              contents: unit('mco-test'),
              dropins: [{ name: '10-env.conf', contents: '[Service]\nEnvironment=A=1\n' }],
            },
          ],
        },
        passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAAC3 test@mco'] }] },
      },
      { kernelArguments: ['mco.test=1'] },
    );
    const result = await updater().update(base, next, { firstBoot: false });
    expect(result).toEqual({ kind: 'rebooting' });
    expect(p.takeRebootRequests()).toEqual(['Node will reboot into config rendered-worker-2']);

    expect(read('/etc/mco-test/new.conf')).toBe('hello\n');
    expect(stat('/etc/mco-test/new.conf').mode & 0o7777).toBe(0o640);
    expect(exists('/etc/machine-config-daemon/noorig/etc/mco-test/new.conf.mcdnoorig')).toBe(true);
    expect(read('/etc/systemd/system/mco-test.service')).toBe(unit('mco-test'));
    expect(read('/etc/systemd/system/mco-test.service.d/10-env.conf')).toBe(
      '[Service]\nEnvironment=A=1\n',
    );
    expect(
      execFileSync(
        'readlink',
        [join(p.root, 'etc/systemd/system/multi-user.target.wants/mco-test.service')],
        {
          encoding: 'utf8',
        },
      ).trim(),
    ).toBe('/etc/systemd/system/mco-test.service');
    const core = (await p.host.files.lookupUser('core'))!;
    for (const dir of ['/home/core/.ssh', '/home/core/.ssh/authorized_keys.d']) {
      expect(await p.host.files.stat(dir)).toEqual({
        kind: 'directory',
        mode: 0o700,
        uid: core.uid,
        gid: core.gid,
      });
    }
    expect(await p.host.files.stat('/home/core/.ssh/authorized_keys.d/ignition')).toEqual({
      kind: 'file',
      mode: 0o600,
      uid: core.uid,
      gid: core.gid,
    });
    expect(read('/home/core/.ssh/authorized_keys.d/ignition')).toBe(
      'ssh-ed25519 AAAAC3 test@mco\n',
    );
    const status = await p.host.os.status();
    expect(status.pending?.kernelArguments).toEqual(['console=ttyS0', 'mco.test=1']);
    expect((await readCurrentConfig(p.host.files))?.metadata.name).toBe('rendered-worker-2');
    const journal = await updater().journal.read();
    expect(journal).toMatchObject({
      from: 'rendered-worker-1',
      to: 'rendered-worker-2',
      phase: JournalPhase.Rebooting,
    });
    expect(exists('/run/machine-config-daemon/reboot-requested')).toBe(true);
    expect(events.seen).toEqual([
      'Normal OSUpdateStarted: Changing kernel arguments',
      'Normal OSUpgradeSkipped: OS upgrade skipped; new MachineConfig (rendered-worker-2) has same OS image (plain:boot) as old MachineConfig (rendered-worker-1)',
      'Normal OSUpdateStaged: Changes to OS staged',
    ]);

    p.reboot();
    const parsed = parseNodeConfig(next);
    expect(parsed.ok && (await checkOnDiskState(p.host, parsed.value))).toEqual({
      ok: true,
      value: undefined,
    });
    expect((await p.host.os.status()).booted.kernelArguments).toEqual([
      'console=ttyS0',
      'mco.test=1',
    ]);
  });

  it('a safe registries.conf change reloads crio and needs no reboot; a changed unit without a policy reboots', async () => {
    const { p, updater, onConfig, events } = setup();
    const v1 = mc('rendered-worker-1', {
      storage: {
        files: [
          file('/etc/containers/registries.conf', 'unqualified-search-registries = ["a.io"]\n'),
        ],
      },
    });
    await onConfig(v1);
    const v2 = mc('rendered-worker-2', {
      storage: {
        files: [
          file(
            '/etc/containers/registries.conf',
            'unqualified-search-registries = ["a.io", "b.io"]\n',
          ),
        ],
      },
    });
    expect(await updater().update(v1, v2, { firstBoot: false })).toEqual({ kind: 'rebootless' });
    expect(p.takeRebootRequests()).toEqual([]);
    expect(p.systemdActions()).toEqual([{ action: 'reload', unit: 'crio' }]);
    expect(events.seen).toContain(
      'Normal ServiceReload: Config changes do not require reboot. Service crio was reloaded.',
    );
    expect(await updater().journal.read()).toMatchObject({ phase: JournalPhase.Committed });
  });

  it('restores what the OS shipped when a config stops managing a file, and deletes what it created', async () => {
    const { updater, read, exists, onConfig } = setup();
    const v1 = mc('rendered-worker-1', {
      storage: {
        files: [file('/etc/testos.conf', 'managed\n'), file('/etc/from-only.conf', 'x\n')],
      },
    });
    const shipped = read('/etc/testos.conf');
    await onConfig(v1);
    expect(read('/etc/testos.conf')).toBe('managed\n');
    expect(read('/etc/machine-config-daemon/orig/etc/testos.conf.mcdorig')).toBe(shipped);
    const v2 = mc('rendered-worker-2', {});
    await updater().update(v1, v2, { firstBoot: false });
    expect(read('/etc/testos.conf')).toBe(shipped);
    expect(exists('/etc/machine-config-daemon/orig/etc/testos.conf.mcdorig')).toBe(false);
    expect(exists('/etc/from-only.conf')).toBe(false);
    expect(exists('/etc/machine-config-daemon/noorig/etc/from-only.conf.mcdnoorig')).toBe(false);
  });

  it('sets the core password hash and masks a unit', async () => {
    const { p, updater, onConfig } = setup();
    await onConfig(base);
    const next = mc('rendered-worker-2', {
      storage: { files: [file('/etc/existing.conf', 'a\n')] },
      passwd: {
        users: [{ name: 'core', passwordHash: '$6$salt$hash', sshAuthorizedKeys: ['ssh-rsa K'] }],
      },
      systemd: { units: [{ name: 'masked.service', mask: true }] },
    });
    await updater().update(base, next, { firstBoot: false });
    expect(await p.host.users.passwordHash('core')).toBe('$6$salt$hash');
    expect(await p.host.files.stat('/etc/systemd/system/masked.service')).toMatchObject({
      kind: 'symlink',
      linkTarget: '/dev/null',
    });
  });

  it('a write that fails midway rolls every written file back and reports the exact reason', async () => {
    const { p, updater, onConfig, events } = setup();
    await onConfig(base);
    mkdirSync(join(p.root, 'etc/locked'), { recursive: true });
    execFileSync('chattr', ['+i', join(p.root, 'etc/locked')]);
    const before = disk(p.root);
    const next = mc('rendered-worker-2', {
      storage: {
        files: [
          file('/etc/existing.conf', 'changed\n'),
          file('/etc/mco-a/x.conf', 'x\n'),
          file('/etc/locked/y.conf', 'y\n'),
          file('/etc/mco-c/z.conf', 'z\n'),
        ],
      },
      systemd: { units: [{ name: 'extra.service', enabled: true, contents: unit('extra') }] },
    });
    const e = await updater()
      .update(base, next, { firstBoot: false })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DaemonError);
    expect((e as DaemonError).kind).toBe(FailureKind.Degraded);
    expect((e as DaemonError).message).toMatch(
      /^failed to write file "\/etc\/locked\/y\.conf": open \/etc\/locked\/\.y\.conf\.[0-9a-f]+\.tmp: operation not permitted$/,
    );
    expect(snapshotDiff(before, disk(p.root))).toEqual([]);
    expect(await updater().journal.read()).toBeUndefined();
    expect(events.seen).toEqual([]);
  });

  it('an unreconcilable config (a disk change) fails with upstream’s message and writes nothing', async () => {
    const { p, updater, onConfig, events } = setup();
    await onConfig(base);
    const before = disk(p.root);
    const next = mc('rendered-worker-3', {
      storage: {
        disks: [{ device: '/dev/sdb', wipeTable: true }],
        files: [file('/etc/new.conf', 'n\n')],
      },
    });
    const e = (await updater()
      .update(base, next, { firstBoot: false })
      .catch((x: unknown) => x)) as DaemonError;
    const reason =
      'can\'t reconcile config rendered-worker-1 with rendered-worker-3: configs rendered-worker-1, rendered-worker-3 are not reconcilable: new machineconfig "rendered-worker-1" is not reconcilable against "rendered-worker-3": ignition disks section contains changes';
    expect(e.kind).toBe(FailureKind.Unreconcilable);
    expect(e.message).toBe(reason);
    expect(events.seen).toEqual([`Warning FailedToReconcile: ${reason}`]);
    expect(snapshotDiff(before, disk(p.root))).toEqual([]);
  });

  it('the forcefile re-applies everything, reboots, and is removed', async () => {
    const { p, updater, read, onConfig, events } = setup();
    await onConfig(base);
    execFileSync('sh', ['-c', `echo drift > ${join(p.root, 'etc/existing.conf')}`]);
    execFileSync('touch', [join(p.root, 'run/machine-config-daemon-force')]);
    expect(await updater().update(base, base, { firstBoot: false })).toEqual({ kind: 'rebooting' });
    expect(read('/etc/existing.conf')).toBe('a\n');
    expect(existsSync(join(p.root, 'run/machine-config-daemon-force'))).toBe(false);
    expect(p.takeRebootRequests()).toEqual(['Node will reboot into config rendered-worker-1']);
    // The OS stays as it is: no "Upgrading OS" announced, only upstream's OSUpgradeSkipped.
    expect(events.seen.filter((e) => e.includes('OSUp'))).toEqual([
      `Normal OSUpgradeSkipped: OS upgrade skipped; new MachineConfig (rendered-worker-1) has same OS image (${base.spec?.osImageURL ?? ''}) as old MachineConfig (rendered-worker-1)`,
    ]);
  });
});

describe('an update stopped at a journaled step', () => {
  const next = mc(
    'rendered-worker-2',
    {
      storage: {
        files: [
          file('/etc/existing.conf', 'b\n'),
          file('/etc/mco/one.conf', '1\n'),
          file('/etc/mco/two.conf', '2\n'),
          file('/etc/testos.conf', 'override\n'),
        ],
      },
      systemd: { units: [{ name: 'mco-test.service', enabled: true, contents: unit('t') }] },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-rsa K'] }] },
    },
    { kernelArguments: ['a=1'] },
  );

  it.each([
    ['journal-prepare', 1],
    ['prior-captured', 1],
    ['journal-files', 1],
    ['write-file', 2],
    ['file-written', 3],
    ['write-unit', 1],
    ['enable-units', 1],
    ['journal-users', 1],
    ['write-ssh-keys', 1],
    ['journal-os', 1],
    ['update-kargs', 1],
    ['journal-commit', 1],
    ['current-config-written', 1],
  ])(
    'at %s:%i resumes to the new config, or rolls back to exactly the old one',
    async (step, n) => {
      const { p, updater, onConfig } = setup();
      await onConfig(base);
      const old = disk(p.root);
      const crash = stopAt(step, n);
      const e = await updater(crash)
        .update(base, next, { firstBoot: false })
        .catch((x: unknown) => x);
      expect(crash.hit).toBe(true);
      expect((e as DaemonError).kind).toBe(FailureKind.Stopped);
      const journal = await updater().journal.read();
      expect(journal).toBeDefined();

      // roll back: the disk is the old one again, byte for byte
      await updater().abandon(journal!, 'abandoned');
      expect(snapshotDiff(old, disk(p.root))).toEqual([]);
      expect((await p.host.os.status()).pending).toBeUndefined();

      // or resume: stop again at the same point, then finish
      await updater(stopAt(step, n))
        .update(base, next, { firstBoot: false })
        .catch(() => undefined);
      const again = (await updater().journal.read())!;
      expect(await updater().update(base, next, { firstBoot: false, resume: again })).toEqual({
        kind: 'rebooting',
      });
      p.reboot();
      const parsed = parseNodeConfig(next);
      expect(parsed.ok && (await checkOnDiskState(p.host, parsed.value))).toEqual({
        ok: true,
        value: undefined,
      });
    },
    // each case runs two updates and a rollback through systemctl and usermod: slow when loaded
    180_000,
  );
});

describe('MachineConfiguration/cluster the daemon may not read', () => {
  it('updates with the default policies and says so once, not on every update', async () => {
    const { p, events } = setup();
    const logged: string[] = [];
    const log: Logger = {
      debug: () => undefined,
      info: (m) => logged.push(`info ${m}`),
      warn: (m, f) => logged.push(`warn ${m} ${JSON.stringify(f)}`),
      error: (m) => logged.push(`error ${m}`),
      child: () => log,
    };
    const forbidden =
      'machineconfigurations.operator.openshift.io "cluster" is forbidden: User "system:node:worker-0" cannot get resource "machineconfigurations" in API group "operator.openshift.io" at the cluster scope';
    // Only what an update of files asks of the cluster: its conditions, state and annotations.
    const cluster = {
      name: 'worker-0',
      machineConfiguration: () => Promise.resolve({ kind: 'forbidden', message: forbidden }),
      condition: () => Promise.resolve(),
      setWorking: () => Promise.resolve(),
      setPostConfigAction: () => Promise.resolve(),
      annotation: () => 'SingleReplica',
      requestDrain: () => Promise.resolve(true),
    } as unknown as ClusterNode;
    const updater = new Updater({
      host: p.host,
      log,
      clock,
      events,
      metrics: noDaemonMetrics,
      crash: noCrashPoints,
      nodeName: 'worker-0',
      stopRequested: () => false,
      cluster,
    });
    await updater.update(mc('mco-empty-mc', {}), base, { firstBoot: true });
    p.reboot();
    await updater.journal.clear();
    const v2 = mc('rendered-worker-2', { storage: { files: [file('/etc/existing.conf', 'b\n')] } });
    const v3 = mc('rendered-worker-3', { storage: { files: [file('/etc/existing.conf', 'c\n')] } });
    for (const [from, to] of [
      [base, v2],
      [v2, v3],
    ] as const) {
      await updater.update(from, to, { firstBoot: false });
      p.reboot();
      await updater.journal.clear();
    }
    expect(readFileSync(join(p.root, 'etc/existing.conf'), 'utf8')).toBe('c\n');
    expect(logged.filter((l) => l.includes('MachineConfiguration'))).toEqual([
      `warn cannot read MachineConfiguration/cluster; using the default node disruption policies ${JSON.stringify({ error: forbidden })}`,
    ]);
  });
});

/**
 * The Host contract (src/ports/host.ts): one suite every implementation runs against a real (or
 * realistic) machine, as the storage contract does for storages. It speaks only through the port
 * plus a fixture that plays the machine's side: carrying out a reboot, reading a reboot request,
 * naming an OS image the host can stage. Groups can be run alone (`describeNodeFilesContract`, …)
 * by implementations that cannot offer everything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src/ports/host.js';

export interface HostContractFixture {
  readonly host: Host;
  /** A user that exists on the node (its home is `/home/<user>` or alike). */
  readonly user: string;
  /** Carries out a reboot as the machine would (staged OS changes take effect). */
  reboot(): Promise<void>;
  /** The reason of the reboot the host asked for since the last call (consumed), if any. */
  takeRebootRequest(): Promise<string | undefined>;
  /** An OS image stageImage accepts that is not the booted OS, and the commit it deploys. */
  readonly stageableImage: string;
  readonly stageableChecksum: string;
  dispose(): Promise<void>;
}

export type HostFixtureFactory = () => Promise<HostContractFixture>;

const text = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

function useFixture(make: HostFixtureFactory): () => HostContractFixture {
  let fixture: HostContractFixture | undefined;
  beforeAll(async () => {
    fixture = await make();
  }, 120_000);
  afterAll(async () => {
    await fixture?.dispose();
  }, 60_000);
  return () => {
    if (fixture === undefined) throw new Error('host fixture not ready');
    return fixture;
  };
}

function describeNodeFilesContract(name: string, make: HostFixtureFactory): void {
  describe(`${name}: NodeFiles`, () => {
    const f = useFixture(make);

    it.each([
      ['/etc/contract/a/plain.conf', 0o644],
      ['/etc/contract/a/secret.conf', 0o600],
      ['/etc/contract/b/group.conf', 0o640],
      ['/etc/contract/b/tool', 0o755],
      ['/etc/contract/b/setuid-tool', 0o4755],
    ])(
      'writeAtomic %s with mode %o: exact content, mode, root owner, parents 0755',
      async (path, mode) => {
        const { files } = f().host;
        await files.writeAtomic(path, text(`content of ${path}\n`), { mode });
        expect(decode(await files.read(path))).toBe(`content of ${path}\n`);
        expect(await files.stat(path)).toEqual({ kind: 'file', mode, uid: 0, gid: 0 });
        const parent = path.slice(0, path.lastIndexOf('/'));
        expect(await files.stat(parent)).toEqual({
          kind: 'directory',
          mode: 0o755,
          uid: 0,
          gid: 0,
        });
      },
    );

    it('writeAtomic replaces content and mode and leaves no temp file behind', async () => {
      const { files } = f().host;
      await files.writeAtomic('/etc/contract/replace/x.conf', text('one\n'), { mode: 0o600 });
      await files.writeAtomic('/etc/contract/replace/x.conf', text('two\n'), { mode: 0o644 });
      expect(decode(await files.read('/etc/contract/replace/x.conf'))).toBe('two\n');
      expect((await files.stat('/etc/contract/replace/x.conf'))?.mode).toBe(0o644);
      expect(await files.list('/etc/contract/replace')).toEqual(['x.conf']);
    });

    it('writeAtomic with an owner chowns the file', async () => {
      const { files } = f().host;
      const user = await files.lookupUser(f().user);
      expect(user).toBeDefined();
      const { uid, gid } = user ?? { uid: -1, gid: -1 };
      await files.writeAtomic('/etc/contract/owned.conf', text('mine\n'), {
        mode: 0o600,
        uid,
        gid,
      });
      expect(await files.stat('/etc/contract/owned.conf')).toEqual({
        kind: 'file',
        mode: 0o600,
        uid,
        gid,
      });
    });

    it('writeAtomic over a symlink replaces the link, not its target', async () => {
      const { files } = f().host;
      await files.writeAtomic('/etc/contract/link-target.conf', text('target\n'), { mode: 0o644 });
      await files.symlink('/etc/contract/link-target.conf', '/etc/contract/link.conf');
      await files.writeAtomic('/etc/contract/link.conf', text('replaced\n'), { mode: 0o644 });
      expect((await files.stat('/etc/contract/link.conf'))?.kind).toBe('file');
      expect(decode(await files.read('/etc/contract/link-target.conf'))).toBe('target\n');
    });

    it('read and stat answer undefined for a missing path; list answers [] for a missing folder', async () => {
      const { files } = f().host;
      expect(await files.read('/etc/contract/none')).toBeUndefined();
      expect(await files.stat('/etc/contract/none')).toBeUndefined();
      expect(await files.stat('/etc/contract/none/deeper')).toBeUndefined();
      expect(await files.list('/etc/contract/none')).toEqual([]);
    });

    it('symlink creates or replaces a link; stat shows its target; read follows it on the node', async () => {
      const { files } = f().host;
      await files.writeAtomic('/etc/contract/sym/real.conf', text('real\n'), { mode: 0o644 });
      await files.symlink('/etc/contract/sym/old.conf', '/etc/contract/sym/link');
      await files.symlink('/etc/contract/sym/real.conf', '/etc/contract/sym/link');
      expect(await files.stat('/etc/contract/sym/link')).toMatchObject({
        kind: 'symlink',
        linkTarget: '/etc/contract/sym/real.conf',
      });
      expect(decode(await files.read('/etc/contract/sym/link'))).toBe('real\n');
      await files.symlink('/dev/null', '/etc/contract/sym/masked.service');
      expect((await files.stat('/etc/contract/sym/masked.service'))?.linkTarget).toBe('/dev/null');
    });

    it('remove deletes files and links (not their targets); a missing path is fine', async () => {
      const { files } = f().host;
      await files.writeAtomic('/etc/contract/rm/f', text('f'), { mode: 0o644 });
      await files.symlink('/etc/contract/rm/f', '/etc/contract/rm/l');
      await files.remove('/etc/contract/rm/l');
      expect(await files.stat('/etc/contract/rm/l')).toBeUndefined();
      expect(await files.stat('/etc/contract/rm/f')).toBeDefined();
      await files.remove('/etc/contract/rm/f');
      await files.remove('/etc/contract/rm/f');
      expect(await files.list('/etc/contract/rm')).toEqual([]);
    });

    it('removeTree deletes a folder with its content; a missing one is fine', async () => {
      const { files } = f().host;
      await files.writeAtomic('/etc/contract/tree/a/b/c', text('c'), { mode: 0o644 });
      await files.removeTree('/etc/contract/tree');
      expect(await files.stat('/etc/contract/tree')).toBeUndefined();
      await files.removeTree('/etc/contract/tree');
    });

    it('copy keeps content, mode and owner', async () => {
      const { files } = f().host;
      const user = await files.lookupUser(f().user);
      const { uid, gid } = user ?? { uid: 0, gid: 0 };
      await files.writeAtomic('/etc/contract/cp/from', text('copied\n'), { mode: 0o640, uid, gid });
      await files.copy('/etc/contract/cp/from', '/etc/contract/cp/backup/to.mcdorig');
      expect(decode(await files.read('/etc/contract/cp/backup/to.mcdorig'))).toBe('copied\n');
      expect(await files.stat('/etc/contract/cp/backup/to.mcdorig')).toEqual({
        kind: 'file',
        mode: 0o640,
        uid,
        gid,
      });
    });

    it('mkdirp makes the missing folders with the mode and owner; existing ones stay as they are', async () => {
      const { files } = f().host;
      const user = await files.lookupUser(f().user);
      const owner = { uid: user?.uid ?? 0, gid: user?.gid ?? 0 };
      await files.mkdirp('/etc/contract/mk', 0o755);
      await files.mkdirp('/etc/contract/mk/a/b', 0o700, owner);
      expect(await files.stat('/etc/contract/mk/a')).toEqual({
        kind: 'directory',
        mode: 0o700,
        ...owner,
      });
      expect(await files.stat('/etc/contract/mk/a/b')).toEqual({
        kind: 'directory',
        mode: 0o700,
        ...owner,
      });
      expect(await files.stat('/etc/contract/mk')).toEqual({
        kind: 'directory',
        mode: 0o755,
        uid: 0,
        gid: 0,
      });
    });

    it('list gives the names in a folder, sorted', async () => {
      const { files } = f().host;
      for (const n of ['b', 'a', 'c.d'])
        await files.writeAtomic(`/etc/contract/ls/${n}`, text(n), { mode: 0o644 });
      expect(await files.list('/etc/contract/ls')).toEqual(['a', 'b', 'c.d']);
    });

    it('lookupUser and lookupGroup read the node’s passwd and group', async () => {
      const { files } = f().host;
      expect(await files.lookupUser('root')).toMatchObject({ uid: 0, gid: 0 });
      expect(await files.lookupUser('no-such-user')).toBeUndefined();
      expect(await files.lookupGroup('root')).toBe(0);
      expect(await files.lookupGroup('no-such-group')).toBeUndefined();
    });

    it('hostPath names where the node path is on this machine', async () => {
      const { files } = f().host;
      await files.writeAtomic('/etc/contract/where.conf', text('here'), { mode: 0o644 });
      expect(files.hostPath('/etc/contract/where.conf')).toMatch(/\/etc\/contract\/where\.conf$/);
    });
  });
}

const unit = (description: string, install: boolean) =>
  text(
    `[Unit]\nDescription=${description}\n\n[Service]\nType=oneshot\nExecStart=/usr/bin/true\n${
      install ? '\n[Install]\nWantedBy=multi-user.target\n' : ''
    }`,
  );

function describeSystemdContract(name: string, make: HostFixtureFactory): void {
  describe(`${name}: Systemd`, () => {
    const f = useFixture(make);

    it('enable makes the wants link and is-enabled says enabled; disable removes it', async () => {
      const { files, systemd } = f().host;
      await files.writeAtomic('/etc/systemd/system/contract-a.service', unit('a', true), {
        mode: 0o644,
      });
      expect(await systemd.isEnabled('contract-a.service')).toBe('disabled');
      await systemd.enable(['contract-a.service']);
      expect(await systemd.isEnabled('contract-a.service')).toBe('enabled');
      expect(
        await files.stat('/etc/systemd/system/multi-user.target.wants/contract-a.service'),
      ).toMatchObject({
        kind: 'symlink',
        linkTarget: '/etc/systemd/system/contract-a.service',
      });
      await systemd.disable(['contract-a.service']);
      expect(await systemd.isEnabled('contract-a.service')).toBe('disabled');
      expect(
        await files.stat('/etc/systemd/system/multi-user.target.wants/contract-a.service'),
      ).toBeUndefined();
    });

    it('preset applies the preset files', async () => {
      const { files, systemd } = f().host;
      await files.writeAtomic('/etc/systemd/system/contract-b.service', unit('b', true), {
        mode: 0o644,
      });
      await files.writeAtomic(
        '/etc/systemd/system-preset/10-contract.preset',
        text('enable contract-b.service\n'),
        {
          mode: 0o644,
        },
      );
      await systemd.preset('contract-b.service');
      expect(await systemd.isEnabled('contract-b.service')).toBe('enabled');
    });

    it('a unit without [Install] is static; a link to /dev/null is masked; no unit is not-found', async () => {
      const { files, systemd } = f().host;
      await files.writeAtomic('/etc/systemd/system/contract-c.service', unit('c', false), {
        mode: 0o644,
      });
      expect(await systemd.isEnabled('contract-c.service')).toBe('static');
      await files.symlink('/dev/null', '/etc/systemd/system/contract-d.service');
      expect(await systemd.isEnabled('contract-d.service')).toBe('masked');
      expect(await systemd.isEnabled('contract-none.service')).toBe('not-found');
    });

    it('enable and disable of nothing, daemon-reload, restart and reload resolve', async () => {
      const { systemd } = f().host;
      await systemd.enable([]);
      await systemd.disable([]);
      await systemd.daemonReload();
      await systemd.restart('crio.service');
      await systemd.reload('crio.service');
    });
  });
}

function describeUsersContract(name: string, make: HostFixtureFactory): void {
  describe(`${name}: Users`, () => {
    const f = useFixture(make);

    it('setPasswordHash changes the hash passwordHash reads', async () => {
      const { users } = f().host;
      const hash =
        '$6$contractsalt$Ck0xQmPnzN5fhKQ6Bj6h2QyJ1uS9W.vPzU9o0JQyxwKzZzcJ1c5D6ZrZlq5v8oD8i7PHhmRuXiB0x1bJ2k0w1.';
      await users.setPasswordHash(f().user, hash);
      expect(await users.passwordHash(f().user)).toBe(hash);
      await users.setPasswordHash(f().user, '*');
      expect(await users.passwordHash(f().user)).toBe('*');
    });

    it('an unknown user has no hash, and setting one fails', async () => {
      const { users } = f().host;
      expect(await users.passwordHash('no-such-user')).toBeUndefined();
      await expect(users.setPasswordHash('no-such-user', 'x')).rejects.toThrow();
    });
  });
}

function describeOsUpdaterContract(name: string, make: HostFixtureFactory): void {
  describe(`${name}: OsUpdater and Rebooter`, () => {
    const f = useFixture(make);
    let bootKargs: readonly string[] = [];
    let bootChecksum = '';

    it('status: the booted deployment, nothing pending', async () => {
      const status = await f().host.os.status();
      expect(status.booted.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(status.pending).toBeUndefined();
      bootKargs = status.booted.kernelArguments;
      bootChecksum = status.booted.checksum;
    });

    it('updateKernelArguments stages the change for the next boot only', async () => {
      const { os } = f().host;
      await os.updateKernelArguments({
        delete: ['absent=1'],
        append: ['contract=1', 'quoted="a b"'],
      });
      const status = await os.status();
      expect(status.booted.kernelArguments).toEqual(bootKargs);
      expect(status.pending?.checksum).toBe(bootChecksum);
      expect(status.pending?.kernelArguments).toEqual([...bootKargs, 'contract=1', 'quoted="a b"']);
    });

    it('reboot is asked through the Rebooter; after it the arguments are booted, and /etc writes survive', async () => {
      const { host } = f();
      await host.files.writeAtomic('/etc/contract-os/before-reboot.conf', text('kept\n'), {
        mode: 0o600,
      });
      await host.rebooter.reboot('contract: kernel arguments');
      expect(await f().takeRebootRequest()).toBe('contract: kernel arguments');
      await f().reboot();
      const status = await host.os.status();
      expect(status.booted.kernelArguments).toEqual([...bootKargs, 'contract=1', 'quoted="a b"']);
      expect(status.pending).toBeUndefined();
      expect(decode(await host.files.read('/etc/contract-os/before-reboot.conf'))).toBe('kept\n');
      expect((await host.files.stat('/etc/contract-os/before-reboot.conf'))?.mode).toBe(0o600);
    });

    it('cleanupPending drops a staged change; the next boot keeps what is booted', async () => {
      const { os } = f().host;
      await os.updateKernelArguments({ delete: ['contract=1'], append: ['dropped=1'] });
      expect((await os.status()).pending?.kernelArguments).toContain('dropped=1');
      await os.cleanupPending();
      expect((await os.status()).pending).toBeUndefined();
      await f().reboot();
      const status = await os.status();
      expect(status.booted.kernelArguments).toContain('contract=1');
      expect(status.booted.kernelArguments).not.toContain('dropped=1');
    });

    it('stageImage stages another OS keeping the kernel arguments; the reboot boots it', async () => {
      const { os } = f().host;
      const before = (await os.status()).booted;
      await os.stageImage(f().stageableImage);
      const staged = await os.status();
      expect(staged.booted.checksum).toBe(before.checksum);
      expect(staged.pending).toMatchObject({
        checksum: f().stageableChecksum,
        image: f().stageableImage,
        kernelArguments: before.kernelArguments,
      });
      await f().reboot();
      const after = await os.status();
      expect(after.booted).toMatchObject({
        checksum: f().stageableChecksum,
        image: f().stageableImage,
        kernelArguments: before.kernelArguments,
      });
      expect(after.pending).toBeUndefined();
    });

    it('an image the host cannot resolve fails and leaves nothing staged', async () => {
      const { os } = f().host;
      await expect(os.stageImage('no-such-scheme:nothing')).rejects.toThrow();
      expect((await os.status()).pending).toBeUndefined();
    });

    it('fipsEnabled answers', async () => {
      expect(typeof (await f().host.fipsEnabled())).toBe('boolean');
    });
  });
}

/** The whole contract: files, systemd, users, OS updates and reboots. */
export function describeHostContract(name: string, make: HostFixtureFactory): void {
  describeNodeFilesContract(name, make);
  describeSystemdContract(name, make);
  describeUsersContract(name, make);
  describeOsUpdaterContract(name, make);
}

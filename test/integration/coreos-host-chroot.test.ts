/**
 * The coreos Host's command lines run inside a real root: a Debian tree made by debootstrap
 * (test/support/debian-root.ts, cached across runs) with systemd and ostree, under an overlay.
 * systemctl, usermod, getent and ostree are the root's own binaries; Debian has no rpm-ostree, so a
 * stand-in script that exists only inside the root answers from the root's OSTree repository
 * (with the root's real ostree) and its /etc/kernel/cmdline. The tests show each command saw the
 * root's files and wrote into the root, and that a sentinel folder beside the root, and this
 * machine's own /etc, were left alone. The reboot is not run: if the chroot failed, it would reboot
 * the machine running the tests.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreosHost, type CoreosHost } from '../../src/adapters/coreos-host.js';
import { createExecCommandRunner } from '../../src/adapters/exec-command-runner.js';
import {
  cachedDebianRoot,
  debianRootUnavailable,
  writableRoot,
  type WritableRoot,
} from '../support/debian-root.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';
import { snapshotTree, type TreeSnapshot } from '../support/tree-snapshot.js';

const unavailable = debianRootUnavailable();
if (unavailable !== undefined)
  console.warn(`SKIPPED coreos-host-chroot: ${unavailable}; the coreos host's chroot is untested`);

const FakeRpmOstree = `#!/bin/sh
# rpm-ostree stand-in (Debian packages none); it exists only inside the test root
set -eu
echo "$*" >> /var/log/rpm-ostree-calls
repo=/ostree/repo
case "$1" in
  status)
    c=$(ostree --repo=$repo rev-parse os/booted)
    v=$(ostree --repo=$repo show --print-metadata-key=version os/booted | tr -d "'")
    printf '{"deployments":[{"id":"debian-%s.0","checksum":"%s","version":"%s","booted":true,"staged":false}]}\\n' "$c" "$c" "$v"
    ;;
  kargs)
    shift
    case "$*" in --deploy-index=*) cat /etc/kernel/cmdline; exit 0 ;; esac
    args=$(cat /etc/kernel/cmdline)
    for a in "$@"; do
      case "$a" in
        --append=*) args="$args \${a#--append=}" ;;
        *) echo "rpm-ostree stand-in: unsupported argument $a" >&2; exit 1 ;;
      esac
    done
    echo "$args" > /etc/kernel/cmdline
    ;;
  cleanup) ;;
  *) echo "rpm-ostree stand-in: unsupported command $1" >&2; exit 1 ;;
esac
`;

const Unit = 'mco-chroot-probe.service';
const UnitText =
  '[Unit]\nDescription=probe\n[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n';
const User = 'mcochroot';

/** The target of the link at `path`, undefined when there is none (links are not followed). */
const linkAt = (path: string): string | undefined =>
  lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true
    ? readlinkSync(path)
    : undefined;

describe.skipIf(unavailable !== undefined)(
  'coreos host: commands chrooted into a Debian root',
  () => {
    let dir: TmpDir;
    let view: WritableRoot;
    let sentinel: string;
    let sentinelBefore: TreeSnapshot;
    let hostShadowBefore: string;
    let host: CoreosHost;
    const local = createExecCommandRunner();

    beforeAll(() => {
      const cached = cachedDebianRoot();
      console.info(
        cached.madeInMs > 0
          ? `debootstrap made ${cached.path} in ${String(Math.round(cached.madeInMs / 1000))} s`
          : `reusing the cached Debian root ${cached.path}`,
      );
      dir = makeTmpDir('mco-chroot-');
      view = writableRoot(cached.path, join(dir.path, 'overlay'));
      // the sentinel sits beside the root; none of its paths may change
      sentinel = join(dir.path, 'overlay/sentinel');
      mkdirSync(join(sentinel, 'etc/systemd/system'), { recursive: true });
      writeFileSync(join(sentinel, 'etc/shadow'), 'root:*:19000:0:99999:7:::\n');
      writeFileSync(join(sentinel, 'etc/kernel-cmdline'), 'sentinel\n');
      sentinelBefore = snapshotTree(sentinel);
      hostShadowBefore = readFileSync('/etc/shadow', 'utf8');
      // the root's OS: a commit of its own files in a repository only it has, booted with kargs.
      // Set up with chroot(8) directly, not the runner under test: a broken runner must not get
      // to run this setup on the machine running the tests.
      execFileSync('chroot', [
        view.root,
        '/bin/sh',
        '-c',
        'set -e; mkdir -p /ostree/repo; ostree --repo=/ostree/repo init --mode=bare; ' +
          'mkdir -p /tmp/os; cp /etc/debian_version /tmp/os/; ' +
          'ostree --repo=/ostree/repo commit --branch=os/booted --tree=dir=/tmp/os ' +
          '--add-metadata-string=version=$(cat /etc/debian_version) >/dev/null; ' +
          'mkdir -p /etc/kernel; echo "root=/dev/vda1 rw" > /etc/kernel/cmdline; ' +
          `useradd --no-create-home ${User}`,
      ]);
      writeFileSync(join(view.root, 'usr/bin/rpm-ostree'), FakeRpmOstree);
      chmodSync(join(view.root, 'usr/bin/rpm-ostree'), 0o755);
      host = createCoreosHost({ runner: local, root: view.root });
    }, 900_000);

    afterAll(() => {
      // a failed beforeAll may leave these unset
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      view?.dispose();
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      dir?.remove();
    });

    it('enables and disables a unit with the root’s systemctl, in the root’s /etc', async () => {
      // GIVEN a unit written into the root through the root resolver
      await host.files.writeAtomic(
        `/etc/systemd/system/${Unit}`,
        new TextEncoder().encode(UnitText),
        {
          mode: 0o644,
        },
      );
      expect(await host.systemd.isEnabled(Unit)).toBe('disabled');
      // WHEN it is enabled with the host's systemctl
      await host.systemd.enable([Unit]);
      // THEN the wants link is in the root (in the overlay's changes), and not on this machine
      const wants = `etc/systemd/system/multi-user.target.wants/${Unit}`;
      expect(linkAt(join(view.root, wants))).toBe(`/etc/systemd/system/${Unit}`);
      expect(linkAt(join(view.changes, wants))).toBe(`/etc/systemd/system/${Unit}`);
      expect(linkAt(join('/', wants))).toBeUndefined();
      expect(await host.systemd.isEnabled(Unit)).toBe('enabled');
      // the root's /run has no systemd: daemon-reload reaches no manager, not this machine's
      await expect(host.systemd.daemonReload()).rejects.toThrow(
        'error running systemctl daemon-reload: System has not been booted with systemd',
      );
      await host.systemd.disable([Unit]);
      expect(linkAt(join(view.root, wants))).toBeUndefined();
      expect(await host.systemd.isEnabled(Unit)).toBe('disabled');
      expect(await host.systemd.isEnabled('no-such-unit.service')).toBe('not-found');
    });

    it('sets and reads a password hash with the root’s usermod and getent', async () => {
      // GIVEN a user that exists only in the root
      expect(await host.users.passwordHash(User)).toBe('!');
      // WHEN its hash is set
      await host.users.setPasswordHash(User, '$6$salt$hash');
      // THEN the root's shadow has it, this machine's shadow is untouched
      expect(await host.users.passwordHash(User)).toBe('$6$salt$hash');
      expect(readFileSync(join(view.root, 'etc/shadow'), 'utf8')).toContain(
        `${User}:$6$salt$hash:`,
      );
      expect(readFileSync('/etc/shadow', 'utf8')).toBe(hostShadowBefore);
    });

    it('refuses a hostile user name without a shell running any of it', async () => {
      const name = `${User}; touch /pwned`;
      await expect(host.users.setPasswordHash(name, '*')).rejects.toThrow(
        `Failed to reset password for ${name}`,
      );
      expect(existsSync(join(view.root, 'pwned'))).toBe(false);
      expect(existsSync('/pwned')).toBe(false);
    });

    it('reads the OS from the root’s own OSTree repository and changes the root’s kargs', async () => {
      const booted = execFileSync(
        'chroot',
        [view.root, 'ostree', '--repo=/ostree/repo', 'rev-parse', 'os/booted'],
        {
          encoding: 'utf8',
        },
      ).trim();
      expect(existsSync('/ostree/repo')).toBe(false); // only the root has that repository
      const version = readFileSync(join(view.root, 'etc/debian_version'), 'utf8').trim();
      // WHEN the status is read and the kernel arguments change
      const status = await host.os.status();
      expect(status.booted).toEqual({
        checksum: booted,
        version,
        kernelArguments: ['root=/dev/vda1', 'rw'],
        extensions: [],
      });
      await host.os.updateKernelArguments({ delete: [], append: ['nosmt'] });
      await host.os.cleanupPending();
      // THEN the root's cmdline changed and its log shows each command line as issued
      expect(readFileSync(join(view.root, 'etc/kernel/cmdline'), 'utf8')).toBe(
        'root=/dev/vda1 rw nosmt\n',
      );
      expect(readFileSync(join(view.root, 'var/log/rpm-ostree-calls'), 'utf8').split('\n')).toEqual(
        ['status --json', 'kargs --deploy-index=0', 'kargs --append=nosmt', 'cleanup -p', ''],
      );
      expect(existsSync('/var/log/rpm-ostree-calls')).toBe(false);
    });

    it('left the sentinel beside the root unchanged', () => {
      expect(snapshotTree(sentinel)).toEqual(sentinelBefore);
      expect(readFileSync('/etc/shadow', 'utf8')).toBe(hostShadowBefore);
      rmSync(join(view.root, 'var/log/rpm-ostree-calls'), { force: true });
    });
  },
);

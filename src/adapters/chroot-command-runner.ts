/**
 * A CommandRunner that runs every program inside the node's root: `chroot <root> <argv…>`, so
 * rpm-ostree, systemctl, usermod and the rest are the host's own binaries acting on the host's
 * files, databases and (through the root's /run) its systemd. Upstream's daemon does the same by
 * chrooting itself into its `--root-mount` (/rootfs, the host's `/` as a hostPath volume) and
 * re-executing; a Node process cannot chroot itself, so each command is chrooted instead.
 * docs/reference/cluster-deployment.md §5; the choice is in docs/adr/0021-host-commands-in-chroot.md.
 *
 * A root of `/` needs no chroot: the commands run as given. The root is resolved to an absolute
 * path first, and argv is never passed through a shell.
 */
import { posix } from 'node:path';
import type { CommandResult, CommandRunner, RunOptions } from '../ports/command-runner.js';

/** The PATH inside the host: the container's own PATH may name folders the host lacks. */
export const HostPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The argv that runs `argv` inside `root` (`env` pins PATH to the host's). */
export function chrootArgv(root: string, argv: readonly string[]): readonly string[] {
  const resolved = posix.resolve(root);
  if (resolved === '/') return argv;
  return ['chroot', resolved, '/usr/bin/env', `PATH=${HostPath}`, ...argv];
}

export function createChrootCommandRunner(root: string, runner: CommandRunner): CommandRunner {
  if (!posix.isAbsolute(root)) throw new Error(`chroot root ${root}: expected an absolute path`);
  return {
    run(argv: readonly string[], options?: RunOptions): Promise<CommandResult> {
      if (argv.length === 0) throw new Error('CommandRunner.run: empty argv');
      return runner.run(chrootArgv(root, argv), options);
    },
  };
}

import { describe, expect, it } from 'vitest';
import type { CommandRunner } from '../ports/command-runner.js';
import { chrootArgv, createChrootCommandRunner, HostPath } from './chroot-command-runner.js';

function recordingRunner() {
  const calls: (readonly string[])[] = [];
  const runner: CommandRunner = {
    run(argv) {
      calls.push([...argv]);
      return Promise.resolve({ stdout: '', stderr: '', code: 0 });
    },
  };
  return { runner, calls };
}

describe('chroot command runner', () => {
  it('prefixes every command with chroot into the root and the host PATH', async () => {
    const { runner, calls } = recordingRunner();
    await createChrootCommandRunner('/rootfs', runner).run(['systemctl', 'enable', 'a b.service']);
    expect(calls).toEqual([
      [
        'chroot',
        '/rootfs',
        '/usr/bin/env',
        `PATH=${HostPath}`,
        'systemctl',
        'enable',
        'a b.service',
      ],
    ]);
  });

  it('runs commands as given when the root is /', async () => {
    const { runner, calls } = recordingRunner();
    await createChrootCommandRunner('/', runner).run(['rpm-ostree', 'status', '--json']);
    expect(calls).toEqual([['rpm-ostree', 'status', '--json']]);
  });

  it('normalizes the root and refuses a relative one or an empty argv', () => {
    expect(chrootArgv('/host/../rootfs/', ['true'])[1]).toBe('/rootfs');
    expect(chrootArgv('//', ['true'])).toEqual(['true']);
    const { runner } = recordingRunner();
    expect(() => createChrootCommandRunner('rootfs', runner)).toThrow(
      'chroot root rootfs: expected an absolute path',
    );
    expect(() => createChrootCommandRunner('/r', runner).run([])).toThrow('empty argv');
  });
});

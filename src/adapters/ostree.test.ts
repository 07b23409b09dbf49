import { describe, expect, it } from 'vitest';
import type { CommandResult, CommandRunner } from '../ports/command-runner.js';
import { commandLine } from '../lib/command-line.js';
import { OstreeCli, OstreeError, parseAdminStatus, parseBootEntry } from './ostree.js';
import { applyKernelArgumentChange } from './ostree-host.js';
import { presetEnabledUnits } from './ostree-node-machine.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('parseAdminStatus (ostree 2022.7 text)', () => {
  it('reads deployments in boot order with version, origin and pin', () => {
    const text = [
      `  testos ${B}.0`,
      '    Version: 2.0',
      `    origin refspec: ${B}`,
      `* testos ${A}.1 (rollback)`,
      '    Version: 1.0',
      '    origin refspec: testos:testos/x86_64/stable',
      '    Pinned: yes',
      '',
    ].join('\n');
    expect(parseAdminStatus(text)).toEqual([
      {
        index: 0,
        osname: 'testos',
        checksum: B,
        serial: 0,
        booted: false,
        pinned: false,
        version: '2.0',
        originRefspec: B,
      },
      {
        index: 1,
        osname: 'testos',
        checksum: A,
        serial: 1,
        booted: true,
        pinned: true,
        version: '1.0',
        originRefspec: 'testos:testos/x86_64/stable',
      },
    ]);
  });

  it.each([['No deployments.\n'], ['']])('%j has none', (text) => {
    expect(parseAdminStatus(text)).toEqual([]);
  });
});

describe('parseBootEntry', () => {
  it('splits options as the kernel does and sets ostree= apart', () => {
    const text = [
      'title TestOS 2.0 (ostree:0)',
      'version 2',
      `options root=LABEL=root console=ttyS0 q="a b" ostree=/ostree/boot.0/testos/${B}/0 foo`,
      `linux /ostree/testos-${B}/vmlinuz-6.1.0-test`,
      `initrd /ostree/testos-${B}/initramfs-6.1.0-test.img`,
      '',
    ].join('\n');
    expect(parseBootEntry('ostree-2-testos.conf', text)).toEqual({
      file: 'ostree-2-testos.conf',
      title: 'TestOS 2.0 (ostree:0)',
      version: 2,
      kernelArguments: ['root=LABEL=root', 'console=ttyS0', 'q="a b"', 'foo'],
      ostreeTarget: `/ostree/boot.0/testos/${B}/0`,
      linux: `/ostree/testos-${B}/vmlinuz-6.1.0-test`,
      initrd: `/ostree/testos-${B}/initramfs-6.1.0-test.img`,
    });
  });

  it.each([
    ['no ostree= argument', 'version 1\noptions quiet\n'],
    ['no version', `options ostree=/ostree/boot.0/x/${A}/0\n`],
  ])('ignores an entry with %s', (_, text) => {
    expect(parseBootEntry('x.conf', text)).toBeUndefined();
  });
});

describe('applyKernelArgumentChange', () => {
  it.each([
    [['a=1', 'b', 'a=1'], { delete: ['a=1'], append: [] }, ['b', 'a=1']],
    [['a=1'], { delete: ['absent'], append: ['c', 'c'] }, ['a=1', 'c', 'c']],
    [['x', 'y'], { delete: ['x', 'y'], append: ['z'] }, ['z']],
  ])('%j with %j is %j (each delete removes one occurrence)', (current, change, want) => {
    expect(applyKernelArgumentChange(current, change)).toEqual(want);
  });
});

describe('presetEnabledUnits', () => {
  it('takes the enable lines of Ignition’s preset file', () => {
    expect(
      presetEnabledUnits('enable a.service\ndisable b.service\n# enable c\nenable  d.timer\n'),
    ).toEqual(['a.service', 'd.timer']);
  });
});

/** Answers by command line; records every call. */
function recordingRunner(
  answers: Record<string, Partial<CommandResult>>,
): CommandRunner & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    run(argv) {
      const line = commandLine(argv);
      calls.push(line);
      const a = answers[line] ?? {};
      return Promise.resolve({ stdout: a.stdout ?? '', stderr: a.stderr ?? '', code: a.code ?? 0 });
    },
  };
}

describe('OstreeCli command lines', () => {
  it('deploy spells out every kernel argument after --karg-none (duplicates kept)', async () => {
    const runner = recordingRunner({});
    await new OstreeCli(runner).deploy({
      sysroot: '/n/rootfs/sysroot',
      osname: 'testos',
      refspec: A,
      kernelArguments: ['console=ttyS0', 'console=tty0', 'q="a b"'],
      originFile: '/n/state/staged.origin',
    });
    expect(runner.calls).toEqual([
      `ostree admin deploy --sysroot=/n/rootfs/sysroot --os=testos --karg-none --karg-append=console=ttyS0 --karg-append=console=tty0 --karg-append=q="a b" --origin-file=/n/state/staged.origin ${A}`,
    ]);
  });

  it('a failing command is an OstreeError with its stderr', async () => {
    const runner = recordingRunner({
      'ostree admin undeploy --sysroot=/s 3': {
        code: 1,
        stderr: 'error: Out of range deployment index 3\n',
      },
    });
    const undeploy = new OstreeCli(runner).undeploy('/s', 3);
    await expect(undeploy).rejects.toBeInstanceOf(OstreeError);
    await expect(undeploy).rejects.toThrow(
      'ostree admin undeploy --sysroot=/s 3: error: Out of range deployment index 3',
    );
  });

  it('commitMetadata unquotes the GVariant string and is undefined for a missing key', async () => {
    const runner = recordingRunner({
      [`ostree --repo=/r show --print-metadata-key=version ${A}`]: {
        stdout: "'4.16.0-0.it\\'s'\n",
      },
      [`ostree --repo=/r show --print-metadata-key=nope ${A}`]: {
        code: 1,
        stderr: "error: No such metadata key 'nope'",
      },
    });
    const cli = new OstreeCli(runner);
    expect(await cli.commitMetadata('/r', A, 'version')).toBe("4.16.0-0.it's");
    expect(await cli.commitMetadata('/r', A, 'nope')).toBeUndefined();
  });
});

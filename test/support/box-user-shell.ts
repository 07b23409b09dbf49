/**
 * Commands in a box's work folder as its user types them: `mco` on PATH (the built one), the
 * admin's KUBECONFIG unless told otherwise; and a box node's boot id, which every reboot changes.
 */
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { nodeLayout } from '../../src/adapters/ostree-boot.js';
import { clusterLayout } from '../../src/box/cluster-layout.js';
import { runCommand } from './run-command.js';
import { McoBin, RepoRoot, type RunResult } from './run-mco.js';

export interface UserShell {
  readonly run: (
    cmd: string,
    args: readonly string[],
    env?: Readonly<Record<string, string>>,
  ) => Promise<RunResult>;
  readonly sh: (line: string) => Promise<RunResult>;
  readonly mco: (args: readonly string[]) => Promise<RunResult>;
}

/** Puts the built `mco` on the PATH the shell gives its commands (`WORK/.path`). */
export function putMcoOnPath(work: string): void {
  mkdirSync(join(work, '.path'));
  symlinkSync(join(RepoRoot, 'bin/mco.js'), join(work, '.path/mco'));
}

/** `work` and `kubeconfig` are read at each call: a test sets them in its beforeAll. */
export function userShell(o: {
  readonly work: () => string;
  readonly kubeconfig: () => string;
  readonly timeoutMs: number;
}): UserShell {
  const run: UserShell['run'] = (cmd, args, env = {}) =>
    runCommand(cmd, args, {
      cwd: o.work(),
      env: {
        ...process.env,
        KUBECONFIG: o.kubeconfig(),
        PATH: `${join(o.work(), '.path')}:${process.env['PATH'] ?? ''}`,
        ...env,
      },
      timeoutMs: o.timeoutMs,
    });
  return {
    run,
    sh: (line) => run('bash', ['-c', line]),
    mco: (args) => run(process.execPath, [McoBin, ...args]),
  };
}

/** The boot id of a box node (its supervisor's `state/booted.json`). */
export function bootIdOf(dataDir: string, node: string): string {
  const booted = nodeLayout(clusterLayout(dataDir).nodeDir(node)).booted;
  return (JSON.parse(readFileSync(booted, 'utf8')) as { bootId: string }).bootId;
}

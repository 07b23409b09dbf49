/**
 * `mco completion` in the real shells (bash, zsh, fish from Debian) with the built `mco` on PATH:
 * the script loads, registers the completion, and completing `mco ro` offers `rollout`; and the
 * built binary's `--help` carries Examples.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { McoBin } from '../support/run-mco.js';
import { makeTmpDir } from '../support/tmp-dir.js';

const dir = makeTmpDir('mco-completion-');
symlinkSync(McoBin, `${dir.path}/mco`);
afterAll(() => {
  dir.remove();
});

function shell(
  bin: string,
  script: string,
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(bin, ['-c', script], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${dir.path}:${process.env['PATH'] ?? ''}`, HOME: dir.path },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('mco completion', () => {
  it('bash: source <(mco completion bash) registers it, and `mco ro` completes to rollout', () => {
    const r = shell(
      'bash',
      [
        'source <(mco completion bash)',
        'complete -p mco',
        'COMP_WORDS=(mco ro); COMP_CWORD=1; _mco_completion; echo "1:${COMPREPLY[*]}"',
        'COMP_WORDS=(mco get --con); COMP_CWORD=2; _mco_completion; echo "2:${COMPREPLY[*]}"',
        'COMP_WORDS=(mco completion ""); COMP_CWORD=2; _mco_completion; echo "3:${COMPREPLY[*]}"',
        'COMP_WORDS=(mco rollout ""); COMP_CWORD=2; _mco_completion; echo "4:${COMPREPLY[*]}"',
      ].join('\n'),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'complete -o default -F _mco_completion mco',
        '1:rollout',
        '2:--context',
        '3:bash zsh fish -h --help',
        '4:status preview resume approve history undo -h --help',
        '',
      ].join('\n'),
    );
  });

  it.skipIf(!existsSync('/usr/bin/fish'))('fish: completes commands, options and values', () => {
    const r = shell(
      'fish',
      'mco completion fish | source; complete -C "mco ro"; complete -C "mco completion z"',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('rollout\tFollow rollouts (like kubectl rollout)\nzsh\n');
  });

  it.skipIf(!existsSync('/usr/bin/zsh'))('zsh: loads, registers, and offers the same words', () => {
    // As bashcompinit's _bash_complete calls it: COMP_WORDS=($words), COMP_CWORD=CURRENT-1.
    // zsh's compgen does not filter by the prefix (compadd does, afterwards), so the candidates
    // for `mco ro` are all of mco's words, rollout among them.
    const r = shell(
      'zsh',
      [
        'source <(mco completion zsh)',
        'print -r -- ${_comps[mco]}',
        'COMP_WORDS=(mco ro); COMP_CWORD=1; _mco_completion; print -r -- "1:${(j: :)COMPREPLY}"',
        'COMP_WORDS=(mco rollout ""); COMP_CWORD=2; _mco_completion; print -r -- "2:${(j: :)COMPREPLY}"',
      ].join('\n'),
    );
    expect(r.code, r.stderr).toBe(0);
    const [registered, first, second] = r.stdout.split('\n');
    expect(registered).toBe('_bash_complete -o default -F _mco_completion');
    expect(first?.split(' ')).toContain('rollout');
    expect(second).toBe('2:status preview resume approve history undo -h --help');
  });
});

describe('the built binary', () => {
  it('mco get --help ends with Examples', () => {
    const r = shell('sh', 'mco get --help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '\nExamples:\n  # Nodes with pool, state and current/desired config\n  mco get nodes\n',
    );
  });

  it('mco version --client -o json', () => {
    const r = shell('sh', 'mco version --client -o json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      clientVersion: {
        gitVersion: '0.1.0',
        hash: 'mco-ts-0.1.0',
        nodeVersion: process.version,
        platform: `${process.platform}/${process.arch}`,
      },
    });
  });
});

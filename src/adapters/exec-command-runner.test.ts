import { describe, expect, it } from 'vitest';
import { createExecCommandRunner } from './exec-command-runner.js';

describe('createExecCommandRunner', () => {
  const runner = createExecCommandRunner();

  it('returns stdout, stderr and a non-zero exit code without throwing', async () => {
    // GIVEN a command that writes to both streams and exits 3
    const r = await runner.run(['sh', '-c', 'printf out; printf err >&2; exit 3']);
    // THEN everything comes back as values
    expect(r).toEqual({ stdout: 'out', stderr: 'err', code: 3 });
  });

  it('passes input on stdin, byte for byte', async () => {
    expect(await runner.run(['cat'], { input: 'a\nb\n' })).toEqual({
      stdout: 'a\nb\n',
      stderr: '',
      code: 0,
    });
  });

  it('does not use a shell: arguments arrive verbatim', async () => {
    const r = await runner.run(['printf', '%s|', 'a b', '$HOME', '"q"']);
    expect(r.stdout).toBe('a b|$HOME|"q"|');
  });

  it('reports a program that cannot be started as code 127', async () => {
    const r = await runner.run(['/nonexistent/definitely-not-here']);
    expect(r.code).toBe(127);
    expect(r.stderr).toMatch(/ENOENT/);
  });

  it('rejects when aborted', async () => {
    const controller = new AbortController();
    const running = runner.run(['sleep', '5'], { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(running).rejects.toThrow('stop');
  });
});

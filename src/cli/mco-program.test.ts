import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { CommandExamples } from './command-examples.js';
import { bashCompletion, commandTree, fishCompletion } from './completion-command.js';
import { mcoProgram } from './mco-program.js';

const program = (only?: string): Promise<Command> =>
  mcoProgram(
    { out: () => undefined, err: () => undefined },
    { kubeconfigEnv: undefined, cwd: '/', home: '/' },
    { node: 'v20.0.0', platform: 'linux', arch: 'x64' },
    only,
  );

function everyCommand(root: Command): [string, Command][] {
  const out: [string, Command][] = [];
  const visit = (c: Command, path: string): void => {
    out.push([path, c]);
    for (const s of c.commands) visit(s, `${path} ${s.name()}`);
  };
  visit(root, root.name());
  return out;
}

function helpOf(c: Command): string {
  let text = '';
  c.configureOutput({
    writeOut: (t) => {
      text += t;
    },
    writeErr: (t) => {
      text += t;
    },
  });
  c.outputHelp();
  return text;
}

const wholeTree = await program();

describe('every command', () => {
  const commands = everyCommand(wholeTree);

  it.each(commands)('%s --help has an Examples section that runs mco', (path, command) => {
    const help = helpOf(command);
    expect(help).toMatch(/\nExamples:\n {2}# .+\n {2}\S/);
    const first = /\nExamples:\n {2}# .+\n {2}(.+)\n/.exec(help)?.[1] ?? '';
    expect(first).toMatch(/mco /);
  });

  // A process loads only the subcommand its command line names, by that name: a loader filed
  // under another name would load every command instead (a slower start for that process).
  it.each(wholeTree.commands.map((c) => c.name()).filter((n) => n !== 'completion'))(
    'mco %s loads its own command alone',
    async (name) => {
      expect((await program(name)).commands.map((c) => c.name())).toEqual([name]);
    },
  );

  it('has no examples for commands that do not exist', () => {
    const paths = new Set(commands.map(([p]) => p));
    expect(Object.keys(CommandExamples).filter((p) => !paths.has(p))).toEqual([]);
  });
});

describe('completion scripts come from the command tree', () => {
  const tree = commandTree(wholeTree);

  it('lists every command, its options and their choices', async () => {
    const get = tree.find((n) => n.path === 'mco get');
    expect(get?.options.flatMap((o) => o.flags)).toEqual(
      expect.arrayContaining(['--kubeconfig', '--context', '-l', '--selector', '-o', '--output']),
    );
    expect(get?.options.find((o) => o.flags.includes('--kubeconfig'))?.values).toBe('files');
    const completion = tree.find((n) => n.path === 'mco completion');
    expect(completion?.argumentValues).toEqual(['bash', 'zsh', 'fish']);
    const root = tree.find((n) => n.path === 'mco');
    expect(root?.subcommands.map((s) => s.name)).toEqual(
      expect.arrayContaining(['get', 'rollout', 'version', 'completion', 'start']),
    );
    expect(tree.map((n) => n.path)).toEqual(everyCommand(await program()).map(([p]) => p));
  });

  it('a command added to the tree shows up in the scripts', async () => {
    const p = await program();
    p.command('brand-new').option('--shiny <level>');
    const t = commandTree(p);
    expect(bashCompletion(t)).toContain("'mco brand-new') words='--shiny -h --help'");
    expect(fishCompletion(t)).toContain("-a 'brand-new'");
  });
});

describe('one subcommand on its command line', () => {
  it('loads that subcommand alone; help, completion and unknown names load every one', async () => {
    expect((await program('daemon')).commands.map((c) => c.name())).toEqual(['daemon']);
    expect((await program('rollout')).commands[0]?.commands.map((c) => c.name())).toEqual([
      'status',
      'preview',
      'resume',
      'approve',
      'history',
      'undo',
    ]);
    const all = (await program()).commands.map((c) => c.name());
    expect(all).toContain('completion');
    expect((await program('--help')).commands.map((c) => c.name())).toEqual(all);
    expect((await program('no-such')).commands.map((c) => c.name())).toEqual(all);
  });
});

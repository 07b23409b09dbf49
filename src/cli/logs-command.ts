/**
 * `mco logs node/NAME [-f]`: a simulated node's daemon log from the cluster in a box's data folder,
 * as `oc logs` on the node's machine-config-daemon pod shows it upstream. `mco logs
 * machineosbuild/NAME` prints an On-Cluster Layering build's log (buildah's output), as `oc logs`
 * on the build pod does upstream. The daemon logs pino JSON
 * lines; they are printed one per line as `TIME LEVEL message key=value…` (`--raw` prints them
 * as written). `-f` keeps printing what is appended, across the daemon's restarts and reboots, until
 * Ctrl-C.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, stat } from 'node:fs/promises';
import { Command } from 'commander';
import { formatLogLine } from '../lib/log-text.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import { clusterLayout, DefaultDataDir } from '../box/cluster-layout.js';
import { setTimeout as sleep } from 'node:timers/promises';

export function parseNodeArgument(arg: string): string {
  const slash = arg.indexOf('/');
  const kind = slash < 0 ? '' : arg.slice(0, slash).toLowerCase();
  const name = slash < 0 ? '' : arg.slice(slash + 1);
  if (!['node', 'nodes', 'no'].includes(kind) || name === '')
    throw new CliError(`expected node/NAME, got ${arg}`);
  return name;
}

const BuildKinds = ['machineosbuild', 'machineosbuilds', 'mosb'];
/** A MachineOSBuild name (a DNS subdomain): nothing that could leave the logs folder. */
const BuildName = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** `machineosbuild/NAME` → NAME, or undefined for another kind. */
export function parseBuildArgument(arg: string): string | undefined {
  const slash = arg.indexOf('/');
  if (slash < 0 || !BuildKinds.includes(arg.slice(0, slash).toLowerCase())) return undefined;
  const name = arg.slice(slash + 1);
  if (!BuildName.test(name) || name.includes('..'))
    throw new CliError(`${JSON.stringify(name)} is not a MachineOSBuild name`);
  return name;
}

interface LogsOptions {
  readonly dataDir: string;
  readonly follow: boolean;
  readonly raw: boolean;
}

/** Prints whole lines from `offset`; returns the offset after the last whole line. */
async function printFrom(
  path: string,
  offset: number,
  io: CliIo,
  format: (l: string) => string,
): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size <= offset) return size < offset ? 0 : offset; // truncated: start over
    const buffer = Buffer.alloc(size - offset);
    await handle.read(buffer, 0, buffer.length, offset);
    const text = buffer.toString('utf8');
    const end = text.lastIndexOf('\n');
    if (end < 0) return offset;
    const lines = text.slice(0, end).split('\n');
    io.out(lines.map((l) => `${format(l)}\n`).join(''));
    return offset + Buffer.byteLength(text.slice(0, end + 1));
  } finally {
    await handle.close();
  }
}

export async function runLogs({
  name,
  options,
  io,
  signal,
  kind = 'node',
}: {
  readonly name: string;
  readonly options: LogsOptions;
  readonly io: CliIo;
  readonly signal?: AbortSignal | undefined;
  readonly kind?: 'node' | 'build' | undefined;
}): Promise<void> {
  const layout = clusterLayout(options.dataDir);
  const path = kind === 'build' ? join(layout.buildLogsDir, `${name}.log`) : layout.daemonLog(name);
  if (kind === 'build') {
    if (!existsSync(path) && !options.follow)
      throw new CliError(`no log of MachineOSBuild "${name}" in ${layout.buildLogsDir}`);
  } else if (!existsSync(layout.nodeDir(name))) {
    const known = existsSync(layout.nodesDir) ? readdirSync(layout.nodesDir).sort() : [];
    throw new CliError(
      `node "${name}" not found in ${layout.dir}${known.length > 0 ? ` (nodes: ${known.join(', ')})` : ''}`,
    );
  }
  const format = options.raw ? (l: string) => l : formatLogLine;
  let offset = 0;
  if (existsSync(path)) offset = await printFrom(path, 0, io, format);
  else if (!options.follow) return;
  while (options.follow && signal?.aborted !== true) {
    await sleep(250);
    const exists = await stat(path).then(
      () => true,
      () => false,
    );
    if (exists) offset = await printFrom(path, offset, io, format);
  }
}

export function logsCommand(io: CliIo): Command {
  return new Command('logs')
    .description(
      "Print a simulated node's daemon log (like oc logs on the daemon pod) or a MachineOSBuild's build log",
    )
    .argument('<object>', 'node/NAME or machineosbuild/NAME')
    .option('--data-dir <dir>', 'the cluster in a box data folder', DefaultDataDir)
    .option('-f, --follow', 'keep printing what is appended', false)
    .option('--raw', 'print the JSON lines as written', false)
    .action(async (arg: string, options: LogsOptions) => {
      const stop = new AbortController();
      const onSignal = (): void => {
        stop.abort();
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const build = parseBuildArgument(arg);
        if (build !== undefined)
          await runLogs({ name: build, options, io, signal: stop.signal, kind: 'build' });
        else await runLogs({ name: parseNodeArgument(arg), options, io, signal: stop.signal });
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

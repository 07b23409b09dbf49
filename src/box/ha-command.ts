/**
 * `mco ha up|status|down --data-dir DIR`: the highly available control plane on this machine
 * (src/box/ha-control-plane.ts): 3 etcd members, API servers on etcd, controllers electing a
 * leader, the operator. `up` runs in the foreground, restarts processes that exit (as kubelet
 * would), and stops everything on SIGTERM/SIGINT; `down` sends that SIGTERM to a running `up`.
 * It is the documented way to get the HA control plane (docs/ha.md) until `mco start --ha` calls
 * the same module.
 */
import type { LogFormat } from '../adapters/pino-logger.js';
import { logFormatOption } from '../shell/log-format-option.js';
import { Command } from 'commander';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPinoLogger } from '../adapters/pino-logger.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import { HaControlPlane } from './ha-control-plane.js';
import { errorText } from '../lib/error-text.js';
import { setTimeout as sleep } from 'node:timers/promises';

export const HaPidFileName = 'ha.pid';

interface UpOptions {
  readonly dataDir: string;
  readonly apiServers: string;
  readonly controllers: string;
  readonly etcdPrefix: string;
  readonly operator: boolean;
  readonly controllerArg: string[];
  readonly logLevel: string;
  readonly logFormat?: LogFormat;
}

function count(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new CliError(
      `${flag} ${value}: expected an integer from ${String(min)} to ${String(max)}`,
    );
  return n;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Whether `pid` runs: a zombie (exited, not yet reaped by its parent) does not. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: the signal check is all there is
  }
}

function runningPid(dataDir: string): number | undefined {
  const file = join(dataDir, HaPidFileName);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
}

async function up(io: CliIo, options: UpOptions): Promise<void> {
  const dataDir = resolve(options.dataDir);
  const other = runningPid(dataDir);
  if (other !== undefined)
    throw new CliError(`mco ha up is already running on ${dataDir} (PID ${String(other)})`);
  const log = createPinoLogger({
    name: 'ha',
    level: options.logLevel,
    ...(options.logFormat === undefined ? {} : { format: options.logFormat }),
  });
  const mco = process.argv[1];
  if (mco === undefined) throw new CliError('cannot tell how this mco was started');
  const plane = await HaControlPlane.start({
    dataDir,
    mco: [process.execPath, mco],
    apiServers: count('--api-servers', options.apiServers, 1, 7),
    controllers: count('--controllers', options.controllers, 1, 5),
    etcdPrefix: options.etcdPrefix,
    operator: options.operator,
    controllerArgs: options.controllerArg,
    restartAfterMs: 1000,
    log,
  });
  const pidFile = join(dataDir, HaPidFileName);
  writeFileSync(pidFile, `${String(process.pid)}\n`);
  const status = plane.status();
  io.out(
    [
      `etcd:        ${status.etcd.map((m) => m.clientUrl).join(',')}`,
      `API servers: ${status.apiServers.map((s) => s.url).join(' ')}`,
      `endpoint:    ${status.endpoint}`,
      `kubeconfig:  ${status.kubeconfig}`,
      `state:       ${join(dataDir, 'ha.json')}`,
      '',
    ].join('\n'),
  );
  const timer = setInterval(() => {
    plane.writeStatus();
  }, 5000);
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    clearInterval(timer);
    log.info('stopping the HA control plane', { signal });
    plane
      .stop()
      .then(() => {
        rmSync(pidFile, { force: true });
        process.exit(0);
      })
      .catch((e: unknown) => {
        log.error('stop failed', { error: errorText(e) });
        process.exit(1);
      });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

async function down(io: CliIo, dataDir: string): Promise<void> {
  const pid = runningPid(resolve(dataDir));
  if (pid === undefined) {
    io.out('not running\n');
    return;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 60_000;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new CliError(`PID ${String(pid)} did not stop in 60 s`);
    await sleep(200);
  }
  io.out(`stopped (PID ${String(pid)})\n`);
}

export function haCommand(io: CliIo): Command {
  const ha = new Command('ha').description(
    'A highly available control plane on this machine: 3 etcd members, API servers on etcd, controllers with leader election',
  );
  ha.command('up')
    .description('Start it in the foreground (Ctrl-C or `mco ha down` stops it)')
    .requiredOption('--data-dir <dir>', 'where etcd data, PKI, kubeconfigs and logs live')
    .option('--api-servers <n>', 'API server processes', '3')
    .option('--controllers <n>', 'controller processes (leader election)', '2')
    .option('--etcd-prefix <prefix>', 'prepended to every etcd key', '/mco')
    .option('--no-operator', 'do not run mco operator')
    .option(
      '--controller-arg <arg>',
      'extra argument for every controller (repeatable)',
      collect,
      [],
    )
    .option('--log-level <level>', 'pino log level', 'info')
    .addOption(logFormatOption())
    .action((options: UpOptions) => up(io, options));
  ha.command('status')
    .description('Print the PIDs and URLs of a running `mco ha up` (ha.json)')
    .requiredOption('--data-dir <dir>', 'the data dir given to `mco ha up`')
    .action((options: { dataDir: string }) => {
      const file = join(resolve(options.dataDir), 'ha.json');
      if (!existsSync(file)) throw new CliError(`${file}: not found (is mco ha up running?)`);
      io.out(readFileSync(file, 'utf8'));
    });
  ha.command('down')
    .description('Stop a running `mco ha up` (SIGTERM to its PID; waits for it)')
    .requiredOption('--data-dir <dir>', 'the data dir given to `mco ha up`')
    .action((options: { dataDir: string }) => down(io, options.dataDir));
  return ha;
}

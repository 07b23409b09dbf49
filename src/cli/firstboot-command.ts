/**
 * `mco firstboot-complete-machineconfig [--root DIR] [--host ostree|coreos]`: the first-boot step
 * (docs/reference/firstboot.md §8), run by machine-config-daemon-firstboot.service — on a simulated node, by
 * its supervisor — before the kubelet ever starts. It reads the encapsulated config Ignition wrote
 * (`/etc/ignition-machine-config-encapsulated.json`) and applies it with the daemon's own update
 * code (src/daemon/once-from.ts): old = the empty config with the booted OS image and the
 * requested kernel arguments already on the command line; an empty diff deletes the file;
 * otherwise the legacy action table, no drain, the OS pivoted to osImageURL (pulled from the
 * registry into the node's sysroot) and the kernel arguments applied. As upstream, the reboot
 * comes last: the file is renamed to `.bak` first, then the reboot is requested
 * (`Completing firstboot provisioning to <config>`).
 */
import type { LogFormat } from '../adapters/pino-logger.js';
import { logFormatOption } from '../shell/log-format-option.js';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { Registry } from 'prom-client';
import { createCoreosHost } from '../adapters/coreos-host.js';
import { createExecCommandRunner } from '../adapters/exec-command-runner.js';
import { createOstreeHost } from '../adapters/ostree-host.js';
import { createPinoLogger } from '../adapters/pino-logger.js';
import { nodeExtensionsSource } from '../adapters/extensions-image.js';
import { nodeOsImageFetcher } from '../adapters/registry-os-image-fetcher.js';
import { systemClock } from '../adapters/system-clock.js';
import { EncapsulatedConfigPath } from '../daemon/daemon-paths.js';
import { runOnceFrom } from '../daemon/once-from.js';
import type { Host } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import { promDaemonMetrics } from '../adapters/prom-daemon-metrics.js';
import { errorText } from '../lib/error-text.js';

interface FirstbootOptions {
  readonly root: string;
  readonly host: 'ostree' | 'coreos';
  readonly logLevel: string;
  readonly logFormat?: LogFormat;
}

function createHost(kind: FirstbootOptions['host'], root: string, log: Logger): Host {
  const runner = createExecCommandRunner();
  if (kind === 'coreos') return createCoreosHost({ root, runner });
  return createOstreeHost({
    root,
    runner,
    imageFetcher: nodeOsImageFetcher(root, log),
    extensionsSource: nodeExtensionsSource(root),
  });
}

/** The config's name, for the reboot message (a bare Ignition config has none). */
function configName(content: string): string {
  try {
    const doc = JSON.parse(content) as { metadata?: { name?: unknown } };
    return typeof doc.metadata?.name === 'string' ? doc.metadata.name : 'the encapsulated config';
  } catch {
    return 'the encapsulated config';
  }
}

/**
 * Applies the encapsulated config; the reboot the update asks for is held until the file has
 * become `.bak`, then requested. Returns what happened.
 */
export async function completeFirstboot(
  host: Host,
  log: Logger,
  file: string,
): Promise<'rebooting' | 'applied' | 'unchanged'> {
  const content = readFileSync(file, 'utf8');
  let held: string | undefined;
  const holding: Host = {
    ...host,
    rebooter: {
      reboot: (reason) => {
        held = reason;
        return Promise.resolve();
      },
    },
  };
  const result = await runOnceFrom({
    host: holding,
    log,
    clock: systemClock,
    events: {
      emit: (type, reason, message) => {
        log.info('event', { type, reason, message });
        return Promise.resolve();
      },
    },
    metrics: promDaemonMetrics(new Registry()),
    content,
    source: file,
    encapsulated: true,
  });
  if (held !== undefined) {
    const reason = `Completing firstboot provisioning to ${configName(content)}`;
    log.info(reason, { update: held });
    await host.rebooter.reboot(reason);
  }
  return result;
}

async function run(o: FirstbootOptions, io: CliIo): Promise<void> {
  const root = resolve(o.root);
  const log = createPinoLogger({
    name: 'machine-config-daemon-firstboot',
    level: o.logLevel,
    ...(o.logFormat === undefined ? {} : { format: o.logFormat }),
  });
  const file = join(root, EncapsulatedConfigPath);
  if (!existsSync(file)) {
    io.out(`${EncapsulatedConfigPath}: not present; nothing to do\n`);
    return;
  }
  const host = createHost(o.host, root, log);
  let result: Awaited<ReturnType<typeof completeFirstboot>>;
  try {
    result = await completeFirstboot(host, log, file);
  } catch (e) {
    throw new CliError(`firstboot: ${errorText(e)}`, { cause: e });
  }
  io.out(
    result === 'rebooting'
      ? 'firstboot complete; rebooting\n'
      : result === 'applied'
        ? 'firstboot complete\n'
        : 'firstboot: nothing to change\n',
  );
}

export function firstbootCommand(io: CliIo): Command {
  return new Command('firstboot-complete-machineconfig')
    .description(
      'Apply the encapsulated config Ignition wrote (OS pivot, kernel arguments) before the kubelet starts',
    )
    .option('--root <dir>', "the node's /", '/')
    .addOption(
      new Option('--host <kind>', 'host implementation')
        .choices(['ostree', 'coreos'])
        .default('coreos'),
    )
    .option('--log-level <level>', 'pino log level', 'info')
    .addOption(logFormatOption())
    .action((o: FirstbootOptions) => run(o, io));
}

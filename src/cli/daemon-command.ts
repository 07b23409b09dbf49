/**
 * `mco daemon`: the machine config daemon for one node (docs/daemon.md "Daemon process").
 *
 *   mco daemon --node NAME --root DIR [--kubeconfig FILE] [--node-kubeconfig PATH]
 *              [--host coreos|ostree] [--adopt] [--once-from FILE] [--metrics-port N] [--log-level L]
 *
 * With a kubeconfig (or in-cluster credentials) it runs until SIGTERM/SIGINT, following its Node.
 * As upstream's daemon, it can hold two identities: it reads the cluster and writes its
 * MachineConfigNode as its ServiceAccount, and writes its Node and events as the node itself
 * (`--node-kubeconfig`, the kubelet's kubeconfig on the node); with one kubeconfig only, that one
 * does everything;
 * with `--once-from` it applies a MachineConfig or Ignition file once, without a cluster, and
 * exits. A SIGTERM during the journaled steps of an update is held until the current step is
 * done (the update resumes at the next start). MCO_DAEMON_CRASH_AT=<step>[:<n>],… (tests only)
 * (or `@file`: the targets are read from that file at every point) kills the process with
 * SIGKILL at those points of an update, each once when MCO_DAEMON_CRASH_STAMPS names a folder for
 * stamps.
 */
import type { LogFormat } from '../adapters/pino-logger.js';
import { logFormatOption } from '../shell/log-format-option.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Command } from 'commander';
import { Registry } from 'prom-client';
import { createCoreosHost } from '../adapters/coreos-host.js';
import { createExecCommandRunner } from '../adapters/exec-command-runner.js';
import { createLoggingCommandRunner } from '../adapters/logging-command-runner.js';
import { fsFileWatcher } from '../adapters/fs-file-watcher.js';
import { httpHealthzProbe } from '../adapters/http-healthz-probe.js';
import { HttpsResourceClient, credentialsInCluster } from '../adapters/https-resource-client.js';
import { NodeKubeconfigClient } from '../adapters/node-kubeconfig-client.js';
import { routeNodeWrites } from '../adapters/node-writes-router.js';
import { defaultSupervisorChannel } from '../adapters/ostree-boot.js';
import { createOstreeHost } from '../adapters/ostree-host.js';
import { OstreeBootedPath } from '../adapters/ostree-system-boot.js';
import { NodeRoot } from '../adapters/node-root.js';
import { nodeExtensionsSource } from '../adapters/extensions-image.js';
import { nodeOsImageFetcher } from '../adapters/registry-os-image-fetcher.js';
import { createPinoLogger } from '../adapters/pino-logger.js';
import { startMetricsListener } from '../adapters/metrics-listener.js';
import { systemClock } from '../adapters/system-clock.js';
import { Resources } from '../api/resource-refs.js';
import { ApiEventRecorder } from '../runtime/event-recorder.js';
import {
  crashPointsAt,
  crashPointsFrom,
  crashTargetName,
  noCrashPoints,
  parseCrashTargets,
  type CrashPoints,
  type CrashPointsOptions,
  type CrashTarget,
} from '../daemon/crash-points.js';
import { Daemon } from '../daemon/daemon.js';
import { AdoptAnnotation } from '../logic/nodeplan/adoption.js';
import type { DaemonEvents } from '../daemon/daemon-events.js';
import { promDaemonMetrics } from '../adapters/prom-daemon-metrics.js';
import { EncapsulatedConfigPath } from '../daemon/daemon-paths.js';
import { monitorKubeletHealth } from '../daemon/kubelet-health-monitor.js';
import { runOnceFrom } from '../daemon/once-from.js';
import type { Host } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { CliError } from '../shell/cli-io.js';
import { parseGoDuration } from '../shell/go-duration.js';
import { errorText } from '../lib/error-text.js';

/** The env vars of the crash drill: `<step>[:<n>],…`, and a folder for fire-once stamps. */
export const CrashAtEnv = 'MCO_DAEMON_CRASH_AT';
export const CrashStampsEnv = 'MCO_DAEMON_CRASH_STAMPS';

interface DaemonCliOptions {
  readonly node: string;
  readonly root: string;
  readonly kubeconfig?: string;
  readonly nodeKubeconfig?: string;
  readonly host: string;
  readonly onceFrom?: string;
  readonly metricsPort?: string;
  readonly metricsAddress: string;
  readonly logLevel: string;
  readonly logFormat?: LogFormat;
  readonly adopt?: boolean;
  readonly kubeletHealthzEnabled: string;
  readonly kubeletHealthzEndpoint: string;
  readonly kubeletHealthzInterval: string;
}

/** The kubelet health monitor's settings from the flags; undefined when it is off. */
function kubeletHealthz(o: DaemonCliOptions): { url: string; intervalMs: number } | undefined {
  const enabled = o.kubeletHealthzEnabled.trim().toLowerCase();
  if (enabled !== 'true' && enabled !== 'false')
    throw new CliError(
      `--kubelet-healthz-enabled ${o.kubeletHealthzEnabled}: expected true or false`,
    );
  if (enabled === 'false') return undefined;
  let url: URL;
  try {
    url = new URL(o.kubeletHealthzEndpoint);
  } catch {
    throw new CliError(
      `--kubelet-healthz-endpoint ${o.kubeletHealthzEndpoint}: expected an http(s) URL`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(
      `--kubelet-healthz-endpoint ${o.kubeletHealthzEndpoint}: expected an http(s) URL`,
    );
  const intervalMs = parseGoDuration('--kubelet-healthz-interval', o.kubeletHealthzInterval);
  if (intervalMs <= 0)
    throw new CliError(
      `--kubelet-healthz-interval ${o.kubeletHealthzInterval}: expected a positive duration`,
    );
  return { url: url.href, intervalMs };
}

/** The node's os-release (/etc, else /usr/lib, as systemd reads it; resolved inside the root). */
async function readOsRelease(root: string): Promise<string | undefined> {
  try {
    const node = new NodeRoot(root);
    for (const path of ['/etc/os-release', '/usr/lib/os-release']) {
      const bytes = await node.readFile(path);
      if (bytes !== undefined) return bytes.toString('utf8');
    }
  } catch {
    // unreadable: reported as unsupported, as upstream does on an error
  }
  return undefined;
}

/**
 * A root that really booted from an OSTree deployment (ostree-prepare-root left
 * /run/ostree-booted) and has no node supervisor beside it is a plain OSTree host.
 */
function ostreeBoot(root: string): 'system' | 'supervisor' {
  if (existsSync(join(defaultSupervisorChannel(root), 'booted.json'))) return 'supervisor';
  try {
    return existsSync(new NodeRoot(root).hostPath(OstreeBootedPath)) ? 'system' : 'supervisor';
  } catch {
    return 'supervisor';
  }
}

function createHost(kind: string, root: string, log: Logger): Host {
  const runner = createLoggingCommandRunner(createExecCommandRunner(), log);
  // OS images from a registry (pull by digest, cached under the node's /var) or a local repo.
  if (kind === 'ostree')
    return createOstreeHost({
      root,
      runner,
      imageFetcher: nodeOsImageFetcher(root, log.child({ part: 'os-image' })),
      extensionsSource: nodeExtensionsSource(root),
      boot: ostreeBoot(root),
    });
  if (kind === 'coreos') return createCoreosHost({ root, runner });
  throw new CliError(`--host ${kind}: expected coreos or ostree`);
}

/**
 * The crash drill's hook, from the environment (tests only): MCO_DAEMON_CRASH_AT lists targets
 * (`step[:n],…`), or is `@<file>` whose text lists them and is read again at every point (a test
 * arms a running daemon by writing it; a missing file arms nothing); with
 * MCO_DAEMON_CRASH_STAMPS=<dir> each fires once across restarts (a stamp file per target is
 * written just before the kill).
 */
function crashPointsFromEnv(log: Logger): CrashPoints {
  const spec = process.env[CrashAtEnv];
  if (spec === undefined || spec === '') return noCrashPoints;
  const stamps = process.env[CrashStampsEnv];
  const stampOf = (t: CrashTarget): string | undefined =>
    stamps === undefined || stamps === '' ? undefined : join(stamps, crashTargetName(t));
  const options: CrashPointsOptions = {
    isSpent: (t) => {
      const stamp = stampOf(t);
      return stamp !== undefined && existsSync(stamp);
    },
    kill: (t) => {
      const stamp = stampOf(t);
      if (stamp !== undefined) {
        mkdirSync(dirname(stamp), { recursive: true });
        writeFileSync(stamp, `${String(process.pid)}\n`);
      }
      process.stderr.write(
        `{"level":60,"msg":"crash drill: killing the daemon","at":"${crashTargetName(t)}"}\n`,
      );
      process.kill(process.pid, 'SIGKILL');
    },
  };
  log.warn('crash drill armed', { crashAt: spec, stamps });
  if (spec.startsWith('@')) {
    const file = spec.slice(1);
    return crashPointsFrom(() => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return [];
      }
      return parseCrashTargets(text.replaceAll('\n', ',')) ?? [];
    }, options);
  }
  const targets = parseCrashTargets(spec);
  if (targets === undefined) throw new CliError(`${CrashAtEnv}=${spec}: expected <step>[:<n>],…`);
  return crashPointsAt(targets, options);
}

function nodeEvents(client: ResourceClient, log: Logger, node: string): DaemonEvents {
  const recorder = new ApiEventRecorder({
    client,
    clock: systemClock,
    log,
    component: 'machineconfigdaemon',
    host: node,
  });
  return {
    emit: (type, reason, message) =>
      recorder.event(Resources.node, { metadata: { name: node } }, type, reason, message),
  };
}

const logEvents = (log: Logger): DaemonEvents => ({
  emit: (type, reason, message) => {
    log.info('event', { type, reason, message });
    return Promise.resolve();
  },
});

async function runOnce(
  o: DaemonCliOptions,
  host: Host,
  log: Logger,
  crash: CrashPoints,
): Promise<void> {
  const file = resolve(o.onceFrom ?? '');
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`--once-from ${file}: ${errorText(e)}`);
  }
  let stop = false;
  let journaled = false;
  const onSignal = (): void => {
    if (journaled) log.info('Got SIGTERM, but actively updating; stopping after the current step');
    stop = true;
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const result = await runOnceFrom({
      host,
      log,
      clock: systemClock,
      events: logEvents(log),
      metrics: promDaemonMetrics(new Registry()),
      crash,
      content,
      source: file,
      encapsulated: file === resolve(host.files.hostPath(EncapsulatedConfigPath)),
      stopRequested: () => stop,
      onJournaled: (active) => {
        journaled = active;
      },
    });
    log.info('once-from finished', { result, file });
  } catch (e) {
    throw new CliError(`--once-from ${file}: ${errorText(e)}`);
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

/**
 * The cluster as the daemon reads it: `--kubeconfig`, else the pod's ServiceAccount (upstream's
 * `machine-config-daemon`, in-cluster).
 */
function readClient(o: DaemonCliOptions): HttpsResourceClient {
  if (o.kubeconfig !== undefined) {
    try {
      return HttpsResourceClient.fromKubeconfig(o.kubeconfig);
    } catch (e) {
      throw new CliError(`--kubeconfig ${o.kubeconfig}: ${errorText(e)}`);
    }
  }
  try {
    return new HttpsResourceClient(credentialsInCluster(process.env));
  } catch (e) {
    throw new CliError(
      `no --kubeconfig, and no in-cluster ServiceAccount: ${errorText(e)} (or --once-from to run without a cluster)`,
    );
  }
}

/** The node's own identity for its Node, from a kubeconfig on the node (absolute path there). */
function nodeWriterClient(path: string, host: Host): NodeKubeconfigClient {
  if (!path.startsWith('/'))
    throw new CliError(`--node-kubeconfig ${path}: expected an absolute path on the node`);
  return new NodeKubeconfigClient(host.files, path);
}

export async function runDaemon(o: DaemonCliOptions): Promise<void> {
  if (o.metricsPort !== undefined && !/^\d{1,5}$/.test(o.metricsPort))
    throw new CliError(`--metrics-port ${o.metricsPort}: expected a port number`);
  const healthz = o.onceFrom === undefined ? kubeletHealthz(o) : undefined;
  const log = createPinoLogger({
    name: 'machine-config-daemon',
    level: o.logLevel,
    ...(o.logFormat === undefined ? {} : { format: o.logFormat }),
  }).child({
    node: o.node,
  });
  const host = createHost(o.host, resolve(o.root), log);
  const crash = crashPointsFromEnv(log);
  if (o.onceFrom !== undefined) {
    await runOnce(o, host, log, crash);
    return;
  }
  const reads = readClient(o);
  const nodeWriter =
    o.nodeKubeconfig === undefined ? undefined : nodeWriterClient(o.nodeKubeconfig, host);
  if (nodeWriter !== undefined)
    log.info(`NodeWriter initialized with credentials from ${o.nodeKubeconfig ?? ''}`);
  const client = nodeWriter === undefined ? reads : routeNodeWrites(reads, nodeWriter);
  const registry = new Registry();
  const metrics = promDaemonMetrics(registry, await readOsRelease(resolve(o.root)));
  const daemon = new Daemon({
    nodeName: o.node,
    host,
    client,
    clock: systemClock,
    log,
    events: nodeEvents(nodeWriter ?? reads, log, o.node),
    metrics,
    watcher: fsFileWatcher,
    crash,
    adopt: o.adopt === true,
  });
  const listener =
    o.metricsPort === undefined
      ? undefined
      : await startMetricsListener(registry, o.metricsAddress, Number(o.metricsPort));
  const stop = new AbortController();
  const onSignal = (): void => {
    stop.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  log.info('machine-config-daemon', {
    pid: process.pid,
    host: host.kind,
    root: o.root,
    metricsPort: listener?.port,
  });
  if (healthz !== undefined)
    log.info('Enabling Kubelet Healthz Monitor', { endpoint: healthz.url });
  const monitor =
    healthz === undefined
      ? Promise.resolve()
      : monitorKubeletHealth(
          {
            probe: httpHealthzProbe(healthz.url),
            clock: systemClock,
            log,
            report: (failures) => {
              metrics.setKubeletState(failures);
            },
            intervalMs: healthz.intervalMs,
          },
          stop.signal,
        );
  try {
    await daemon.run(stop.signal);
  } finally {
    stop.abort();
    await monitor;
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await listener?.close();
    reads.close();
    nodeWriter?.close();
  }
}

export function daemonCommand(): Command {
  return new Command('daemon')
    .description(
      'Run the machine config daemon for one node (or apply a config once with --once-from)',
    )
    .requiredOption('--node <name>', 'the Node this daemon manages')
    .requiredOption('--root <dir>', "the node's / (a simulated node's rootfs, or / on a real host)")
    .option(
      '--kubeconfig <file>',
      "kubeconfig to read the cluster with (default: the pod's ServiceAccount, in-cluster); also writes the Node unless --node-kubeconfig",
    )
    .option(
      '--node-kubeconfig <path>',
      "the node's own kubeconfig, a path on the node (the kubelet's /var/lib/kubelet/kubeconfig): Node writes and events go through it",
    )
    .option('--host <kind>', 'host implementation: coreos or ostree', 'coreos')
    .option(
      '--adopt',
      `a node without MCO annotations whose disk differs from its pool's config gets that config applied (default: reported and left alone; the node annotation ${AdoptAnnotation}=true opts one node in)`,
    )
    .option(
      '--once-from <file>',
      'apply this MachineConfig or Ignition config once, without a cluster, and exit',
    )
    .option('--metrics-port <port>', 'serve Prometheus metrics on this port at /metrics')
    .option('--metrics-address <ip>', 'address for the metrics listener', '127.0.0.1')
    .option('--log-level <level>', 'pino log level', 'info')
    .option('--kubelet-healthz-enabled <bool>', 'kubelet healthz endpoint monitoring', 'true')
    .option(
      '--kubelet-healthz-endpoint <url>',
      'healthz endpoint to check health',
      'http://localhost:10248/healthz',
    )
    .option('--kubelet-healthz-interval <duration>', 'how often the kubelet is asked', '30s')
    .addOption(logFormatOption())
    .action(async (options: DaemonCliOptions) => {
      await runDaemon(options);
    });
}

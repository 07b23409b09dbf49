/**
 * `mco node`: simulated nodes (docs/daemon.md "OSTree host and simulated nodes").
 *
 * - `build-boot-image`: commits a rootfs folder into an archive OSTree repo with a version;
 * - `create`: a node folder from a boot image (real `ostree` sysroot), provisioned by the real
 *   Ignition from a pointer config (which gives it the bootstrap kubeconfig);
 * - `run`: boots it and supervises it (kubelet, daemon, reboots) until SIGTERM or SIGINT; the
 *   kubelet gets its identity by TLS bootstrapping (a CSR, approved by the control plane) unless
 *   the node was given one (`--node-kubeconfig`);
 * - `status`: booted and pending deployments with their kernel arguments;
 * - `kargs`, `stage`, `reboot`: what `rpm-ostree kargs`, `rpm-ostree rebase` and `systemctl
 *   reboot` are on a real node, through the same ostree Host the daemon uses;
 * - `delete`: removes the node folder (ostree's immutable deployment folders included).
 */
import type { LogFormat } from '../adapters/pino-logger.js';
import { logFormatOption } from '../shell/log-format-option.js';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { createChildProcessLauncher } from '../adapters/child-process-launcher.js';
import { createExecCommandRunner } from '../adapters/exec-command-runner.js';
import { startKubeletHealthzListener } from '../adapters/kubelet-healthz-listener.js';
import { readBooted, readStaged, nodeLayout } from '../adapters/ostree-boot.js';
import { createOstreeHost } from '../adapters/ostree-host.js';
import { createOstreeNodeMachine } from '../adapters/ostree-node-machine.js';
import { buildOstreeCommit, readModesFile } from '../adapters/ostree-repo.js';
import { OstreeCli, readBootEntries, deploymentOfEntry } from '../adapters/ostree.js';
import { createPinoLogger } from '../adapters/pino-logger.js';
import { systemClock } from '../adapters/system-clock.js';
import { isForbiddenNodeLabel } from '../apiserver/auth/node-restriction.js';
import { splitKernelArguments } from '../logic/nodeplan/kernel-arguments.js';
import type { NodeDefinition } from '../ports/node-machine.js';
import { nodeFolderContainerRecords } from '../adapters/daemon-container-records.js';
import { daemonCommandLine } from '../simulator/daemon-command-line.js';
import { DaemonPodKeeper } from '../simulator/daemon-pod-keeper.js';
import {
  fixedIdentity,
  KubeletCredentials,
  type NodeIdentity,
} from '../simulator/kubelet-credentials.js';
import { createNode, NodeSupervisor, ProvisioningError } from '../simulator/node-supervisor.js';
import { McoVersion } from '../version.js';
import { CliError, type CliIo } from '../shell/cli-io.js';

const here = fileURLToPath(new URL('.', import.meta.url));
/** bin/mco.js, whether this runs from src/box or dist/src/box. */
const McoBin = join(here, here.includes('/dist/') ? '../../../bin/mco.js' : '../../bin/mco.js');

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function parseCommand(flag: string, text: string | undefined): readonly string[] | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`${flag}: expected a JSON array of strings, e.g. '["sleep","infinity"]'`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((a) => typeof a === 'string'))
    throw new CliError(`${flag}: expected a non-empty JSON array of strings`);
  return parsed;
}

/** `--label`s, refusing what NodeRestriction would refuse the node, as the kubelet's `--node-labels`. */
function parseLabels(labels: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of labels) {
    const eq = l.indexOf('=');
    if (eq <= 0) throw new CliError(`--label ${l}: expected key=value`);
    const key = l.slice(0, eq);
    if (isForbiddenNodeLabel(key))
      throw new CliError(
        `--label ${l}: a node may not set ${key} on itself (NodeRestriction); roles and other kubernetes.io labels come from its Machine or an administrator`,
      );
    out[key] = l.slice(eq + 1);
  }
  return out;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${what} ${path}: ${(e as Error).message}`, { cause: e });
  }
}

function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`${flag} ${text}: expected a whole number`);
  return n;
}

function port(flag: string, text: string): number {
  const n = positiveInt(flag, text);
  if (n < 1 || n > 65_535) throw new CliError(`${flag} ${text}: expected a port (1-65535)`);
  return n;
}

const runner = () => createExecCommandRunner();

function machineFor(dir: string) {
  return createOstreeNodeMachine({
    dir,
    runner: runner(),
    path: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    processAlive: (pid) => Promise.resolve(runsFrom(pid, resolve(dir))),
    kill: (pid, signal) => {
      process.kill(pid, signal);
    },
  });
}

/** Whether `pid` is alive and its command line mentions the node folder. */
function runsFrom(pid: number, dir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .some((a) => a.includes(dir));
  } catch {
    return false;
  }
}

function requireNode(dir: string): void {
  if (!existsSync(join(dir, 'node.json')))
    throw new CliError(`${dir} holds no node (no node.json): create it with \`mco node create\``);
}

function buildBootImageCommand(io: CliIo): Command {
  return new Command('build-boot-image')
    .description('Commit a rootfs folder into an archive-mode OSTree repository (a boot image)')
    .requiredOption('--rootfs <dir>', 'the tree to commit (e.g. images/rootfs/testos)')
    .requiredOption('--repo <dir>', 'the OSTree repository (created in archive mode if missing)')
    .requiredOption('--ref <ref>', 'the branch to commit to, e.g. testos/x86_64/stable')
    .requiredOption(
      '--os-version <version>',
      'the commit’s `version` metadata (not --version: that is mco’s own flag)',
    )
    .option('--modes <file>', 'JSON { "<path>": "0640" } of modes git cannot keep')
    .option('--subject <text>', 'commit subject')
    .option(
      '--timestamp <seconds>',
      'commit time (seconds since the epoch), for reproducible checksums',
    )
    .action(
      async (o: {
        rootfs: string;
        repo: string;
        ref: string;
        osVersion: string;
        modes?: string;
        subject?: string;
        timestamp?: string;
      }) => {
        if (!existsSync(o.rootfs)) throw new CliError(`--rootfs ${o.rootfs}: no such folder`);
        const built = await buildOstreeCommit({
          runner: runner(),
          rootfs: resolve(o.rootfs),
          repo: resolve(o.repo),
          ref: o.ref,
          version: o.osVersion,
          ...(o.modes === undefined ? {} : { modes: await readModesFile(o.modes) }),
          ...(o.subject === undefined ? {} : { subject: o.subject }),
          ...(o.timestamp === undefined
            ? {}
            : { timestamp: positiveInt('--timestamp', o.timestamp) }),
        });
        io.out(`${built.checksum}\n`);
      },
    );
}

interface CreateOptions {
  dir: string;
  name: string;
  bootRepo: string;
  ref: string;
  bootImage?: string;
  label: string[];
  zone?: string;
  karg: string[];
  kubeconfig?: string;
  nodeKubeconfig?: string;
  daemonKubeconfig?: string;
  pointerConfig?: string;
  pods: string;
  daemonCommand?: string;
  firstbootCommand?: string;
  daemonMetricsPort?: string;
  logLevel: string;
  logFormat?: LogFormat;
}

function definitionOf(
  o: CreateOptions,
  nodeKubeconfig: string | undefined,
  daemonKubeconfig: string | undefined,
): NodeDefinition {
  const daemonCommand = parseCommand('--daemon-command', o.daemonCommand);
  const firstbootCommand = parseCommand('--firstboot-command', o.firstbootCommand);
  return {
    name: o.name,
    labels: parseLabels(o.label),
    ...(o.zone === undefined ? {} : { zone: o.zone }),
    bootImage: {
      repo: resolve(o.bootRepo),
      ref: o.ref,
      ...(o.bootImage === undefined ? {} : { image: o.bootImage }),
    },
    kernelArguments: o.karg.flatMap((k) => splitKernelArguments(k)),
    ...(nodeKubeconfig === undefined ? {} : { nodeKubeconfig }),
    ...(o.kubeconfig === undefined ? {} : { adminKubeconfig: resolve(o.kubeconfig) }),
    ...(daemonKubeconfig === undefined ? {} : { daemonKubeconfig }),
    pods: positiveInt('--pods', o.pods),
    ...(daemonCommand === undefined ? {} : { daemonCommand }),
    ...(firstbootCommand === undefined ? {} : { firstbootCommand }),
    ...(o.daemonMetricsPort === undefined
      ? {}
      : { daemonMetricsPort: port('--daemon-metrics-port', o.daemonMetricsPort) }),
  };
}

async function runCreate(o: CreateOptions, io: CliIo): Promise<void> {
  const dir = resolve(o.dir);
  if (existsSync(join(dir, 'node.json'))) throw new CliError(`${dir} already holds a node`);
  const pointer =
    o.pointerConfig === undefined ? undefined : readText(o.pointerConfig, 'the pointer config');
  const nodeKubeconfig = o.nodeKubeconfig === undefined ? undefined : resolve(o.nodeKubeconfig);
  if (nodeKubeconfig !== undefined) readText(nodeKubeconfig, 'the node kubeconfig');
  const daemonKubeconfig =
    o.daemonKubeconfig === undefined ? undefined : resolve(o.daemonKubeconfig);
  if (daemonKubeconfig !== undefined) {
    // The daemon then writes its Node with the kubelet's kubeconfig on the node, which only TLS
    // bootstrapping puts there; a given identity lives outside the node's root.
    if (nodeKubeconfig !== undefined)
      throw new CliError(
        '--daemon-kubeconfig needs the kubelet kubeconfig TLS bootstrapping writes on the node; it cannot be combined with --node-kubeconfig',
      );
    readText(daemonKubeconfig, 'the daemon kubeconfig');
  }
  const definition = definitionOf(o, nodeKubeconfig, daemonKubeconfig);
  const existedBefore = existsSync(dir);
  const log = createPinoLogger({
    name: 'node-supervisor',
    level: o.logLevel,
    ...(o.logFormat === undefined ? {} : { format: o.logFormat }),
  });
  const machine = machineFor(dir);
  try {
    await createNode(machine, definition, {
      log,
      ...(pointer === undefined ? {} : { ignitionConfig: pointer }),
    });
  } catch (e) {
    // A node that could not be made is no node: leave no half-made folder behind.
    if (!existedBefore) await machine.destroy();
    if (e instanceof ProvisioningError) throw new CliError(e.message, { cause: e });
    throw new CliError(`creating node ${o.name}: ${(e as Error).message}`, { cause: e });
  }
  io.out(`node ${o.name} created in ${dir}\n`);
}

function createCommand(io: CliIo): Command {
  return new Command('create')
    .description('Create a simulated node from a boot image, provisioned by Ignition')
    .requiredOption('--dir <dir>', 'the node folder (must not hold a node yet)')
    .requiredOption('--name <name>', 'the Node name')
    .requiredOption('--boot-repo <dir>', 'the OSTree repository holding the boot image')
    .requiredOption('--ref <ref>', 'the boot image ref in that repository')
    .option('--boot-image <pullspec>', 'the OS image the boot image is (recorded in its origin)')
    .option(
      '--label <key=value>',
      'an extra label the node registers with (repeatable; no roles: those come from its Machine)',
      collect,
      [],
    )
    .option('--zone <zone>', 'topology.kubernetes.io/zone')
    .option('--karg <arg>', 'a kernel argument of the first deployment (repeatable)', collect, [])
    .option('--kubeconfig <file>', 'an admin kubeconfig, to create the node’s workload pods')
    .option(
      '--node-kubeconfig <file>',
      'a node identity made beforehand (default: TLS bootstrapping from /etc/kubernetes/kubeconfig)',
    )
    .option(
      '--daemon-kubeconfig <file>',
      "what the default daemon reads the cluster with, e.g. `mco apiserver`'s DATA/daemon.kubeconfig; it writes its Node as the kubelet (default: the node identity, which RBAC does not let read MachineConfigs: the node goes Degraded)",
    )
    .option('--pointer-config <file>', 'the Ignition (pointer) config to provision the node with')
    .option('--pods <n>', 'workload pods on the node', '3')
    .option(
      '--daemon-command <json>',
      'the daemon command line as a JSON array (default: mco daemon)',
    )
    .option('--firstboot-command <json>', 'the first-boot step as a JSON array')
    .option(
      '--daemon-metrics-port <port>',
      "serve the default daemon's metrics on 127.0.0.1:<port>/metrics",
    )
    .option('--log-level <level>', 'pino log level', 'info')
    .addOption(logFormatOption())
    .action((o: CreateOptions) => runCreate(o, io));
}

interface RunOptions {
  dir: string;
  heartbeatSeconds: string;
  daemonCommand?: string;
  firstbootCommand?: string;
  noDaemon?: boolean;
  logLevel: string;
  logFormat?: LogFormat;
}

function waitForSignal(stop: AbortController): void {
  const on = () => {
    stop.abort();
  };
  process.once('SIGTERM', on);
  process.once('SIGINT', on);
}

/** `mco daemon` for the node, as the daemon's DaemonSet would run it on a real node. */
function defaultDaemonCommand(def: NodeDefinition): string[] {
  return daemonCommandLine({
    mco: [process.execPath, McoBin],
    ...(def.daemonKubeconfig === undefined ? {} : { daemonKubeconfig: def.daemonKubeconfig }),
    ...(def.daemonMetricsPort === undefined ? {} : { metricsPort: def.daemonMetricsPort }),
  });
}

async function runNode(o: RunOptions): Promise<void> {
  const dir = resolve(o.dir);
  requireNode(dir);
  const log = createPinoLogger({
    name: 'node-supervisor',
    level: o.logLevel,
    ...(o.logFormat === undefined ? {} : { format: o.logFormat }),
  });
  const machine = machineFor(dir);
  const def = await machine.definition();
  const heartbeat = Number(o.heartbeatSeconds);
  if (!Number.isFinite(heartbeat) || heartbeat <= 0)
    throw new CliError(`--heartbeat-seconds ${o.heartbeatSeconds}: expected seconds > 0`);
  const kube = await import('../adapters/kube-client.js');
  const clientFor = (path: string) => kube.createKubeClient({ kubeconfigPath: path });
  const identity: NodeIdentity =
    def.nodeKubeconfig === undefined
      ? new KubeletCredentials({
          nodeName: def.name,
          files: createOstreeHost({ root: machine.root, runner: runner() }).files,
          clientFor,
          clock: systemClock,
          log: log.child({ part: 'kubelet' }),
        })
      : fixedIdentity({ client: clientFor(def.nodeKubeconfig), kubeconfig: def.nodeKubeconfig });
  const workloadClient =
    def.adminKubeconfig === undefined ? undefined : clientFor(def.adminKubeconfig);
  const daemonCommand =
    o.noDaemon === true
      ? undefined
      : (parseCommand('--daemon-command', o.daemonCommand) ??
        def.daemonCommand ??
        defaultDaemonCommand(def));
  const firstbootCommand =
    parseCommand('--firstboot-command', o.firstbootCommand) ?? def.firstbootCommand;
  // The daemon as its DaemonSet's pod: created with the control-plane identity (the DaemonSet
  // controller's part), its status written with the node's (the kubelet's, once it has one).
  const daemonPod =
    daemonCommand === undefined || workloadClient === undefined
      ? undefined
      : new DaemonPodKeeper({
          nodeName: def.name,
          creator: workloadClient,
          records: nodeFolderContainerRecords(dir),
          clock: systemClock,
          log,
          image: `localhost/mco:${McoVersion.raw}`,
        });
  const kubeletHealth = await startKubeletHealthzListener();
  const supervisor = new NodeSupervisor({
    kubeletHealth,
    machine,
    launcher: createChildProcessLauncher(process.env),
    clock: systemClock,
    log,
    identity,
    ...(workloadClient === undefined ? {} : { workloadClient }),
    ...(daemonCommand === undefined ? {} : { daemonCommand }),
    ...(daemonPod === undefined ? {} : { daemonPod }),
    ...(firstbootCommand === undefined ? {} : { firstbootCommand }),
    heartbeatMs: heartbeat * 1000,
  });
  const stop = new AbortController();
  waitForSignal(stop);
  try {
    await supervisor.run(stop.signal);
  } finally {
    await kubeletHealth.close();
  }
}

function runCommand(): Command {
  return new Command('run')
    .description('Boot a simulated node and supervise it (kubelet, daemon, reboots) until SIGTERM')
    .requiredOption('--dir <dir>', 'the node folder')
    .option('--heartbeat-seconds <s>', 'Node status heartbeat period', '10')
    .option('--daemon-command <json>', 'override the daemon command line (JSON array)')
    .option('--no-daemon', 'run no daemon (the kubelet only)')
    .option('--firstboot-command <json>', 'override the first-boot step (JSON array)')
    .option('--log-level <level>', 'pino log level', 'info')
    .addOption(logFormatOption())
    .action((o: RunOptions) => runNode(o));
}

async function nodeStatus(dirOption: string): Promise<Record<string, unknown>> {
  const dir = resolve(dirOption);
  requireNode(dir);
  const layout = nodeLayout(dir);
  const ostree = new OstreeCli(runner());
  const entries = await readBootEntries(layout.sysroot);
  const listed = await ostree.status(layout.sysroot);
  const deployments = [];
  for (const entry of entries) {
    const ref = await deploymentOfEntry(layout.sysroot, entry);
    const status = listed.find((d) => d.checksum === ref.checksum && d.serial === ref.serial);
    deployments.push({
      deployment: `${ref.checksum}.${ref.serial}`,
      version: status?.version,
      origin: status?.originRefspec,
      kernelArguments: entry.kernelArguments,
      bootEntry: entry.file,
    });
  }
  const booted = await readBooted(layout.state);
  const staged = await readStaged(layout.root);
  return { booted: booted ?? null, staged: staged ?? null, deployments };
}

function formatStatus(s: Record<string, unknown>): string {
  const booted = s['booted'] as { checksum: string; serial: number } | null;
  const deployments = s['deployments'] as {
    deployment: string;
    version?: string;
    kernelArguments: string[];
  }[];
  const staged = s['staged'] as { checksum: string; kernelArguments: string[] } | null;
  const lines = deployments.map((d, i) => {
    const tags = [
      i === 0 ? 'default' : 'rollback',
      ...(booted !== null && d.deployment === `${booted.checksum}.${booted.serial}`
        ? ['booted']
        : []),
    ];
    return `${i === 0 ? '*' : ' '} ${d.deployment} (${tags.join(', ')})\n    Version: ${d.version ?? '-'}\n    Kernel arguments: ${d.kernelArguments.join(' ')}`;
  });
  if (staged !== null)
    lines.push(
      `  staged: ${staged.checksum} (deployed at the next reboot)\n    Kernel arguments: ${staged.kernelArguments.join(' ')}`,
    );
  return `${lines.join('\n')}\n`;
}

function statusCommand(io: CliIo): Command {
  return new Command('status')
    .description('Show the booted, default and staged deployments of a simulated node')
    .requiredOption('--dir <dir>', 'the node folder')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['text', 'json'])
        .default('text'),
    )
    .action(async (o: { dir: string; output: string }) => {
      const s = await nodeStatus(o.dir);
      io.out(o.output === 'json' ? `${JSON.stringify(s, null, 2)}\n` : formatStatus(s));
    });
}

function hostFor(dir: string) {
  const abs = resolve(dir);
  requireNode(abs);
  return createOstreeHost({ root: nodeLayout(abs).root, runner: runner() });
}

function kargsCommand(io: CliIo): Command {
  return new Command('kargs')
    .description('Change the kernel arguments of the next boot (like rpm-ostree kargs)')
    .requiredOption('--dir <dir>', 'the node folder')
    .option('--append <arg>', 'append an argument (repeatable)', collect, [])
    .option('--delete <arg>', 'delete an argument if present (repeatable)', collect, [])
    .action(async (o: { dir: string; append: string[]; delete: string[] }) => {
      const host = hostFor(o.dir);
      await host.os.updateKernelArguments({ delete: o.delete, append: o.append });
      const status = await host.os.status();
      io.out(`${(status.pending ?? status.booted).kernelArguments.join(' ')}\n`);
    });
}

function stageCommand(io: CliIo): Command {
  return new Command('stage')
    .description('Stage an OS image for the next boot (like rpm-ostree rebase)')
    .requiredOption('--dir <dir>', 'the node folder')
    .requiredOption('--image <image>', 'ostree-commit:<checksum> or ostree-local:<repo>#<ref>')
    .action(async (o: { dir: string; image: string }) => {
      const host = hostFor(o.dir);
      await host.os.stageImage(o.image);
      const status = await host.os.status();
      io.out(`staged ${status.pending?.checksum ?? '(nothing: already booted)'}\n`);
    });
}

function rebootCommand(io: CliIo): Command {
  return new Command('reboot')
    .description('Ask the node’s supervisor to reboot it (like systemctl reboot)')
    .requiredOption('--dir <dir>', 'the node folder')
    .option('--reason <text>', 'why', 'requested with mco node reboot')
    .action(async (o: { dir: string; reason: string }) => {
      await hostFor(o.dir).rebooter.reboot(o.reason);
      io.out('reboot requested\n');
    });
}

function deleteCommand(io: CliIo): Command {
  return new Command('delete')
    .description('Delete a stopped simulated node’s folder')
    .requiredOption('--dir <dir>', 'the node folder')
    .action(async (o: { dir: string }) => {
      const dir = resolve(o.dir);
      requireNode(dir);
      await machineFor(dir).destroy();
      io.out(`deleted ${dir}\n`);
    });
}

export function nodeCommand(io: CliIo): Command {
  return new Command('node')
    .description('Simulated nodes: OSTree sysroots provisioned by Ignition, run by a supervisor')
    .addCommand(buildBootImageCommand(io))
    .addCommand(createCommand(io))
    .addCommand(runCommand())
    .addCommand(statusCommand(io))
    .addCommand(kargsCommand(io))
    .addCommand(stageCommand(io))
    .addCommand(rebootCommand(io))
    .addCommand(deleteCommand(io));
}

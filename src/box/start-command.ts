/**
 * `mco start`: the cluster in a box (docs/dashboard.md). Starts and supervises, as child
 * processes of this one: the API server (SQLite in the data folder), the operator, the controller,
 * the machine config server, the dashboard, and one `mco node run` supervisor per simulated node
 * (each runs its own `mco daemon`). New nodes are created from the boot image and provisioned by
 * the real Ignition from their pool's pointer config, served by the MCS.
 *
 * - Progress is printed while nodes come up; once every pool is Updated with all its nodes, the
 *   ready banner tells how to use the cluster (KUBECONFIG, kubectl, the dashboard URL).
 * - A child that dies is restarted (after a delay that grows when it keeps dying).
 * - Ctrl-C, SIGTERM or SIGHUP (the terminal closed) stops everything in reverse order, each
 *   process by its PID, waiting for it (SIGKILL after a few seconds); a second Ctrl-C kills what
 *   is left; a fatal error stops everything before the process exits. A closed stdout or stderr
 *   (the `| tee` reading it exited) stops nothing: what it prints also goes to
 *   `DIR/logs/start.log`, stop included (start-supervision.ts). `DIR/pids.json` lists every PID
 *   while it runs, so a start after a crash stops leftovers first. Children run in their own
 *   process group, so the terminal's Ctrl-C reaches only this process and the shutdown order
 *   holds.
 * - Starting again with the same folder resumes: same state, same nodes, same ports.
 * - Nodes join as on OpenShift: the box creates each node's Machine, the node gets only its pool's
 *   pointer config (the MCS requires the box's token, which the pointer config carries) and asks
 *   for its client certificate with the served bootstrap kubeconfig; the controller approves,
 *   signs and labels (docs/adr/0008-tls-bootstrapping.md).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { get as httpGet } from 'node:http';
import { request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import type { ConfigMap } from '../api/core/v1/config-map.js';
import type { Node } from '../api/core/v1/node.js';
import { McoNamespace } from '../api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../api/meta/v1/status-error.js';
import { Resources } from '../api/resource-refs.js';
import { createExecCommandRunner } from '../adapters/exec-command-runner.js';
import { ManagedProcess } from '../adapters/managed-process.js';
import { ensurePki } from '../adapters/pki.js';
import { buildOstreeCommit, readModesFile } from '../adapters/ostree-repo.js';
import { OsImageUrlConfigMapName } from '../logic/operator/os-image-urls.js';
import { describePointerConfigError, pointerConfig } from '../logic/pointer-config.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { McoVersion } from '../version.js';
import { ensureMachine } from './box-machines.js';
import {
  ensureInfrastructure,
  McsCertificateFile,
  projectMcsCertificates,
  seedMcsCertificates,
} from './mcs-certificates.js';
import { parseGoDuration } from '../shell/go-duration.js';
import { CliError, type CliIo } from '../shell/cli-io.js';
import { clusterLayout, DefaultDataDir, type ClusterLayout } from './cluster-layout.js';
import { daemonCommandLine } from '../simulator/daemon-command-line.js';
import { readKubeconfig } from '../shell/kubeconfig.js';
import {
  killGroup,
  processAlive,
  runsFrom,
  StartLog,
  stopStages,
  stopStagesNow,
  type StopStage,
} from './start-supervision.js';
import { errorText } from '../lib/error-text.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const RepoRoot = join(here, here.includes('/dist/') ? '../../..' : '../..');
const McoBin = join(RepoRoot, 'bin/mco.js');
const BootRootfs = join(RepoRoot, 'images/rootfs/testos');
const BootModes = join(RepoRoot, 'images/rootfs/testos.modes.json');
export const BootRef = 'testos/x86_64/stable';
/** Fixed, so the same tree gives the same commit (and the same OS image name) every time. */
const BootTimestamp = 1_700_000_000;

export const DefaultPortBase = 26443;

/** The cluster's metrics endpoints as a Prometheus file_sd list, in the data folder. */
export const MetricsTargetsFile = 'metrics-targets.json';

/** Ports from the base: API server, MCS (TLS, plain), dashboard, metrics of the control plane. */
export interface ClusterPorts {
  readonly apiserver: number;
  readonly mcsSecure: number;
  readonly mcsInsecure: number;
  readonly dashboard: number;
  readonly controllerMetrics: number;
  readonly operatorMetrics: number;
  readonly mcsMetrics: number;
}

export function clusterPorts(base: number): ClusterPorts {
  return {
    apiserver: base,
    mcsSecure: base + 1,
    mcsInsecure: base + 2,
    dashboard: base + 3,
    controllerMetrics: base + 4,
    operatorMetrics: base + 5,
    mcsMetrics: base + 6,
  };
}

/** What `DIR/cluster.json` records, so a later start resumes the same cluster. */
export interface ClusterRecord {
  readonly masters: number;
  readonly workers: number;
  readonly portBase: number;
  /** The OS image nodes boot (and the ControllerConfig's base OS image at first). */
  readonly bootImage: string;
}

export interface NodeSpec {
  readonly name: string;
  readonly pool: 'master' | 'worker';
  readonly zone: string;
}

export function nodeSpecs(masters: number, workers: number): NodeSpec[] {
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  const make = (pool: 'master' | 'worker', n: number): NodeSpec[] =>
    Array.from({ length: n }, (_, i) => ({
      name: `${pool}-${i}`,
      pool,
      zone: zones[i % zones.length] ?? 'zone-a',
    }));
  return [...make('master', masters), ...make('worker', workers)];
}

/** Restart delays of a child that keeps dying: 1 s, 2 s, 4 s … 30 s at most. */
const restartDelayMs = (restarts: number): number =>
  Math.min(30_000, 1000 * 2 ** Math.min(restarts, 5));

export interface StartOptions {
  readonly dataDir: string;
  readonly masters: number;
  readonly workers: number;
  readonly portBase: number;
  /** Which of masters/workers/portBase were given on the command line. */
  readonly explicit: ReadonlySet<'masters' | 'workers' | 'portBase'>;
  /** The controller's `--drain-timeout` (upstream's 1h when absent). */
  readonly drainTimeout?: string;
  /** The controller's `--mcs-cert-validity` and `--mcs-cert-refresh` (upstream's 10 and 8 years). */
  readonly mcsCertValidity?: string;
  readonly mcsCertRefresh?: string;
}

interface Ctx {
  readonly io: StartLog;
  readonly layout: ClusterLayout;
  readonly record: ClusterRecord;
  readonly ports: ClusterPorts;
  readonly children: ManagedProcess[];
  /** PIDs of `mco node create` runs in progress (each the leader of its own process group). */
  readonly creating: Set<number>;
  readonly stop: AbortController;
  readonly drainTimeout?: string;
  readonly mcsCertValidity?: string;
  readonly mcsCertRefresh?: string;
}

function readRecord(layout: ClusterLayout): ClusterRecord | undefined {
  if (!existsSync(layout.clusterFile)) return undefined;
  return JSON.parse(readFileSync(layout.clusterFile, 'utf8')) as ClusterRecord;
}

/** Stops processes a previous `mco start` left running (by PID, if they still run from DIR). */
async function stopLeftovers(layout: ClusterLayout, io: CliIo): Promise<void> {
  if (!existsSync(layout.pidsFile)) return;
  const recorded = JSON.parse(readFileSync(layout.pidsFile, 'utf8')) as Record<string, number>;
  const left = Object.entries(recorded).filter(
    ([, pid]) => processAlive(pid) && runsFrom(pid, layout.dir),
  );
  if (left.length === 0) return;
  io.err(
    `stopping processes left by an earlier start: ${left.map(([n, p]) => `${n} (${p})`).join(', ')}\n`,
  );
  for (const [, pid] of left) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (left.some(([, pid]) => processAlive(pid)) && Date.now() < deadline) await sleep(200);
  for (const [, pid] of left) if (processAlive(pid)) killGroup(pid);
}

function writePids(ctx: Ctx): void {
  const pids: Record<string, number> = { 'mco-start': process.pid };
  for (const c of ctx.children) if (c.pid !== undefined) pids[c.name] = c.pid;
  writeFileSync(ctx.layout.pidsFile, `${JSON.stringify(pids, null, 2)}\n`);
}

/** Starts `mco ARGS…` as a supervised child, restarted when it dies; its output goes to its log. */
function launch(ctx: Ctx, name: string, args: readonly string[]): ManagedProcess {
  const log = ctx.layout.log(name);
  const child = new ManagedProcess({
    name,
    argv: [process.execPath, McoBin, ...args],
    logFile: log,
    detached: true,
    restartAfterMs: restartDelayMs,
    onExit: (exit, delay) => {
      if (ctx.stop.signal.aborted) return;
      ctx.io.err(
        `${name} exited (${exit.signal ?? `code ${String(exit.code)}`}); restarting in ${(delay ?? 0) / 1000}s (log: ${log})\n`,
      );
    },
    onStart: () => {
      writePids(ctx);
    },
  });
  ctx.children.push(child);
  child.start();
  return child;
}

async function until<T>(
  ctx: Ctx,
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (!ctx.stop.signal.aborted) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = errorText(e);
    }
    if (Date.now() > deadline)
      throw new CliError(`timed out waiting for ${what}${last === '' ? '' : `: ${last}`}`);
    await sleep(250);
  }
  throw new CliError('stopped');
}

/** The boot image: TestOS committed into DIR/images/repo; its pull spec. */
async function ensureBootImage(layout: ClusterLayout): Promise<string> {
  const built = await buildOstreeCommit({
    runner: createExecCommandRunner(),
    rootfs: BootRootfs,
    repo: layout.imageRepo,
    ref: BootRef,
    version: '1',
    subject: 'TestOS 1 boot image',
    modes: await readModesFile(BootModes),
    timestamp: BootTimestamp,
  });
  return `ostree-local:${layout.imageRepo}#${built.checksum}`;
}

async function startApiServer(ctx: Ctx): Promise<ResourceClient> {
  const { layout, ports } = ctx;
  const args = [
    'apiserver',
    '--data-dir',
    layout.apiserverDir,
    '--listen',
    `127.0.0.1:${ports.apiserver}`,
    '--storage',
    'sqlite',
    // pods/log of the daemon pods reads the nodes' daemon logs
    '--nodes-dir',
    layout.nodesDir,
  ];
  const child = launch(ctx, 'apiserver', args);
  const pidFile = join(layout.apiserverDir, 'apiserver.pid');
  await until(
    ctx,
    'the API server',
    () =>
      Promise.resolve(
        existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() === String(child.pid)
          ? true
          : undefined,
      ),
    60_000,
  );
  copyFileSync(join(layout.apiserverDir, 'admin.kubeconfig'), layout.adminKubeconfig);
  const { createKubeClient } = await import('../adapters/kube-client.js');
  const client = createKubeClient({ kubeconfigPath: layout.adminKubeconfig });
  await until(
    ctx,
    'the API server to answer',
    async () => (await client.list(Resources.namespace)) && true,
    60_000,
  );
  return client;
}

/** The bearer token the box's MCS requires on /config (Ignition sends it from the pointer config). */
const mcsTokenFile = (layout: ClusterLayout): string => join(layout.mcsDir, 'require-token');

function mcsToken(layout: ClusterLayout): string {
  return readFileSync(mcsTokenFile(layout), 'utf8').trim();
}

/**
 * The MCS's CA and certificate, the token it requires (made once), and the bootstrap token folder
 * it serves node kubeconfigs from.
 */
async function prepareMcs(layout: ClusterLayout): Promise<void> {
  mkdirSync(layout.bootstrapTokenDir, { recursive: true, mode: 0o700 });
  if (!existsSync(mcsTokenFile(layout)))
    writeFileSync(mcsTokenFile(layout), `${randomBytes(32).toString('base64url')}\n`, {
      mode: 0o600,
    });
  await ensurePki({ dir: layout.mcsDir, hosts: ['127.0.0.1'], now: Date.now() });
  const bootstrap = readKubeconfig(
    readFileSync(join(layout.apiserverDir, 'bootstrap.kubeconfig'), 'utf8'),
  );
  if (bootstrap === undefined)
    throw new CliError('the API server wrote no usable bootstrap.kubeconfig');
  writeFileSync(join(layout.bootstrapTokenDir, 'token'), bootstrap.token, { mode: 0o600 });
  writeFileSync(join(layout.bootstrapTokenDir, 'ca.crt'), bootstrap.caPem);
}

/** The release's OS images, as the installer leaves them (only written once: upgrades change it). */
async function ensureOsImageUrls(client: ResourceClient, image: string): Promise<void> {
  try {
    await client.get<ConfigMap>(Resources.configMap, OsImageUrlConfigMapName, McoNamespace);
    return;
  } catch (e) {
    if (!isStatusError(e, 'NotFound')) throw e;
  }
  await client.create<ConfigMap>(Resources.configMap, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: OsImageUrlConfigMapName, namespace: McoNamespace },
    data: {
      baseOSContainerImage: image,
      baseOSExtensionsContainerImage: '',
      osImageURL: '',
      releaseVersion: McoVersion.raw,
    },
  });
}

/**
 * The installer's `99-<pool>-ssh` MachineConfigs: they declare the `core` user, so Ignition creates
 * it at first boot (as on RHCOS) and later SSH key changes have a user to write to. Created once,
 * before the controller's first render; an administrator's own `99-worker-ssh` replaces it. No key:
 * Ignition writes keys as the target user, who cannot reach a data folder under a 0700 home, while
 * the daemon writes them as root later.
 */
async function ensureInstallerSshConfigs(client: ResourceClient): Promise<void> {
  for (const pool of ['master', 'worker']) {
    const name = `99-${pool}-ssh`;
    try {
      await client.get<MachineConfig>(Resources.machineConfig, name);
      continue;
    } catch (e) {
      if (!isStatusError(e, 'NotFound')) throw e;
    }
    await client.create<MachineConfig>(Resources.machineConfig, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name, labels: { 'machineconfiguration.openshift.io/role': pool } },
      spec: {
        config: {
          ignition: { version: '3.2.0' },
          passwd: { users: [{ name: 'core' }] },
        },
      },
    });
  }
}

function startControlPlane(ctx: Ctx): void {
  const { layout, ports } = ctx;
  const kubeconfig = (identity: string) => join(layout.apiserverDir, `${identity}.kubeconfig`);
  const mcsUrl = `https://127.0.0.1:${ports.mcsSecure}`;
  launch(ctx, 'operator', [
    'operator',
    '--kubeconfig',
    kubeconfig('operator'),
    '--mcs-url',
    mcsUrl,
    '--mcs-ca-file',
    mcsCaBundle(layout),
    '--mcs-token-file',
    mcsTokenFile(layout),
    '--metrics-port',
    String(ports.operatorMetrics),
    '--poll-interval',
    '1s',
    // Plays the cluster-version operator, so `mco upgrade --to-image` works on this cluster.
    '--follow-release-images',
  ]);
  launch(ctx, 'controller', [
    'controller',
    '--kubeconfig',
    kubeconfig('controller'),
    '--metrics-port',
    String(ports.controllerMetrics),
    '--render-delay',
    '1s',
    '--node-update-delay',
    '1s',
    '--drain-update-delay',
    '1s',
    ...(ctx.drainTimeout === undefined ? [] : ['--drain-timeout', ctx.drainTimeout]),
    // Nodes join by TLS bootstrapping: this process approves their CSRs (as OpenShift's machine
    // approver), signs them with the cluster CA (as kube-controller-manager) and labels the Nodes
    // from their Machines (as machine-api). It also builds MachineOSConfigs' images with buildah
    // (as upstream's machine-os-builder), logs in builds/logs for `mco logs machineosbuild/NAME`.
    '--controllers',
    '*,csr-signer,node-csr-approver,machine-node-link,mcs-cert-rotator,build',
    ...(ctx.mcsCertValidity === undefined ? [] : ['--mcs-cert-validity', ctx.mcsCertValidity]),
    ...(ctx.mcsCertRefresh === undefined ? [] : ['--mcs-cert-refresh', ctx.mcsCertRefresh]),
    '--build-dir',
    join(layout.dir, 'builds'),
    '--cluster-signing-cert-file',
    join(layout.apiserverDir, 'ca.crt'),
    '--cluster-signing-key-file',
    join(layout.apiserverDir, 'ca.key'),
  ]);
  launch(ctx, 'mcs', [
    'server',
    // The serving Secret as files, as the kubelet mounts it on a cluster (mcs-certificates.ts).
    '--cert',
    join(layout.mcsDir, McsCertificateFile.cert),
    '--key',
    join(layout.mcsDir, McsCertificateFile.key),
    '--tls-reload-interval',
    '1',
    '--address',
    '127.0.0.1',
    '--secure-port',
    String(ports.mcsSecure),
    '--insecure-port',
    String(ports.mcsInsecure),
    '--kubeconfig',
    kubeconfig('mcs'),
    '--apiserver-url',
    `https://127.0.0.1:${ports.apiserver}`,
    '--bootstrap-token-dir',
    layout.bootstrapTokenDir,
    '--require-token',
    mcsTokenFile(layout),
    '--metrics-port',
    String(ports.mcsMetrics),
  ]);
  launch(ctx, 'dashboard', [
    'dashboard',
    '--kubeconfig',
    layout.adminKubeconfig,
    // the node detail reads each node's deployments from its folder
    '--nodes-dir',
    layout.nodesDir,
    // the builds panel shows the build controller's logs
    '--build-logs-dir',
    layout.buildLogsDir,
    '--listen',
    `127.0.0.1:${ports.dashboard}`,
  ]);
}

/** Status of GET https://127.0.0.1:<mcs>/config/<pool> as Ignition 2.14 asks for it. */
function mcsStatus(ctx: Ctx, pool: string): Promise<number> {
  const ca = readFileSync(mcsCaBundle(ctx.layout));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: ctx.ports.mcsSecure,
        path: `/config/${pool}`,
        ca,
        headers: {
          Accept: 'application/vnd.coreos.ignition+json;version=3.3.0',
          Authorization: `Bearer ${mcsToken(ctx.layout)}`,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

function writePointerConfig(ctx: Ctx, pool: string): string {
  const path = ctx.layout.pointerConfig(pool);
  const r = pointerConfig({
    pool,
    serverUrl: `https://127.0.0.1:${ctx.ports.mcsSecure}`,
    caBundle: readFileSync(mcsCaBundle(ctx.layout)),
    token: mcsToken(ctx.layout),
    // Debian's Ignition 2.14 reads spec 3.3.0 at most.
    specVersion: '3.3.0',
  });
  if (!r.ok) throw new CliError(describePointerConfigError(r.error));
  mkdirSync(ctx.layout.pointerDir, { recursive: true });
  // written aside and renamed: a node created while the bundle rotates reads a whole file
  writeFileSync(`${path}.tmp`, `${r.value}\n`);
  renameSync(`${path}.tmp`, path);
  return path;
}

/** The MCS's CA bundle (every CA still valid), projected from the rotator's ConfigMap. */
function mcsCaBundle(layout: ClusterLayout): string {
  return join(layout.mcsDir, McsCertificateFile.bundle);
}

/** The pointer configs already written, again with the current bundle: new nodes trust it. */
function rewritePointerConfigs(ctx: Ctx): void {
  for (const pool of ['master', 'worker'])
    if (existsSync(ctx.layout.pointerConfig(pool))) writePointerConfig(ctx, pool);
}

/**
 * The first-boot step (`mco firstboot-complete-machineconfig`, the OS images work), when this build
 * has it; without one the supervisor starts the kubelet at once and the daemon's first sync takes
 * the encapsulated config.
 */
function firstbootCommand(): string[] | undefined {
  const r = spawnSync(process.execPath, [McoBin, 'firstboot-complete-machineconfig', '--help'], {
    encoding: 'utf8',
  });
  // An unknown command prints mco's own help and exits 0: look for the command's usage line.
  if (r.status !== 0 || !r.stdout.includes('Usage: mco firstboot-complete-machineconfig'))
    return undefined;
  const flag = (name: string, value: string): string[] =>
    r.stdout.includes(`${name} `) ? [name, value] : [];
  return [
    process.execPath,
    McoBin,
    'firstboot-complete-machineconfig',
    ...flag('--root', '{root}'),
    // The simulated node is an OSTree sysroot, not CoreOS with rpm-ostree.
    ...flag('--host', 'ostree'),
    ...flag('--node', '{name}'),
    ...flag('--dir', '{dir}'),
  ];
}

/**
 * Each node's daemon serves its metrics on its own port, after the control plane's: the base + 7
 * + the node's place among the nodes (masters first), so a resumed cluster keeps them.
 */
export function daemonMetricsPort(
  ports: ClusterPorts,
  nodes: readonly NodeSpec[],
  name: string,
): number {
  return ports.apiserver + 7 + nodes.findIndex((n) => n.name === name);
}

/**
 * Every /metrics endpoint of the cluster, as a Prometheus file_sd target list (`DIR/metrics-targets.json`):
 * the one place a Prometheus outside the box scrapes from.
 */
export function metricsTargets(
  ports: ClusterPorts,
  nodes: readonly NodeSpec[],
): { targets: string[]; labels: Record<string, string> }[] {
  const at = (port: number) => [`127.0.0.1:${port}`];
  return [
    { targets: at(ports.controllerMetrics), labels: { job: 'machine-config-controller' } },
    { targets: at(ports.operatorMetrics), labels: { job: 'machine-config-operator' } },
    { targets: at(ports.mcsMetrics), labels: { job: 'machine-config-server' } },
    { targets: at(ports.dashboard), labels: { job: 'mco-dashboard' } },
    ...nodes.map((n) => ({
      targets: at(daemonMetricsPort(ports, nodes, n.name)),
      labels: { job: 'machine-config-daemon', node: n.name },
    })),
  ];
}

/**
 * Each node's daemon as upstream's DaemonSet runs it: it reads the cluster as the
 * `machine-config-daemon` ServiceAccount (its token, RBAC from deploy/) and writes its Node and
 * events with the kubelet's credentials on the node (`/var/lib/kubelet/kubeconfig`, which TLS
 * bootstrapping writes), so the Node authorizer and NodeRestriction decide those.
 */
function daemonCommand(layout: ClusterLayout, metricsPort: number): string[] {
  return daemonCommandLine({
    mco: [process.execPath, McoBin],
    daemonKubeconfig: join(layout.apiserverDir, 'daemon.kubeconfig'),
    metricsPort,
  });
}

async function createNode(ctx: Ctx, client: ResourceClient, spec: NodeSpec): Promise<void> {
  const { layout, record } = ctx;
  const nodes = nodeSpecs(record.masters, record.workers);
  // The Machine first: it is what lets the node's CSR be approved and gives the Node its role.
  await ensureMachine(client, { name: spec.name, role: spec.pool, zone: spec.zone });
  const pointer = writePointerConfig(ctx, spec.pool);
  const firstboot = firstbootCommand();
  const args = [
    'node',
    'create',
    '--dir',
    layout.nodeDir(spec.name),
    '--name',
    spec.name,
    '--boot-repo',
    layout.imageRepo,
    '--ref',
    BootRef,
    '--boot-image',
    record.bootImage,
    '--zone',
    spec.zone,
    '--kubeconfig',
    layout.adminKubeconfig,
    '--pointer-config',
    pointer,
    '--pods',
    '2',
    '--daemon-command',
    JSON.stringify(daemonCommand(layout, daemonMetricsPort(ctx.ports, nodes, spec.name))),
    ...(firstboot === undefined ? [] : ['--firstboot-command', JSON.stringify(firstboot)]),
  ];
  const log = openSync(layout.log(`create-${spec.name}`), 'a');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [McoBin, ...args], {
      stdio: ['ignore', log, log],
      detached: true,
    });
    closeSync(log);
    const pid = child.pid;
    if (pid !== undefined) ctx.creating.add(pid);
    // Half-provisioned: nothing to keep, the next start creates the node again.
    const onAbort = () => {
      if (pid !== undefined) killGroup(pid);
    };
    ctx.stop.signal.addEventListener('abort', onAbort, { once: true });
    child.once('exit', (code) => {
      if (pid !== undefined) ctx.creating.delete(pid);
      ctx.stop.signal.removeEventListener('abort', onAbort);
      if (code === 0) resolve();
      else
        reject(
          new CliError(
            `creating node ${spec.name} failed (exit ${String(code)}); see ${layout.log(`create-${spec.name}`)}`,
          ),
        );
    });
  });
}

interface Progress {
  readonly line: string;
  readonly ready: boolean;
}

/** One line about the nodes and pools; ready once every pool is Updated with all its nodes. */
export function progressLine(
  pools: readonly MachineConfigPool[],
  nodes: readonly Node[],
  expected: number,
): Progress {
  const readyNodes = nodes.filter(
    (n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
  ).length;
  const parts = [`nodes ${readyNodes}/${expected} Ready`];
  let ready = readyNodes >= expected && pools.length > 0;
  // A node added to a cluster that was up is Ready before its pool counts it as updated.
  let updatedMembers = 0;
  for (const p of [...pools].sort((a, b) =>
    (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  )) {
    const updated = p.status?.conditions?.find((c) => c.type === 'Updated')?.status === 'True';
    const degraded = p.status?.conditions?.find((c) => c.type === 'Degraded')?.status === 'True';
    const state = degraded ? 'Degraded' : updated ? 'Updated' : 'Updating';
    parts.push(
      `${p.metadata.name ?? ''} ${state} ${p.status?.updatedMachineCount ?? 0}/${p.status?.machineCount ?? 0}`,
    );
    const members = p.metadata.name === 'master' || p.metadata.name === 'worker';
    if (members) updatedMembers += p.status?.updatedMachineCount ?? 0;
    if (!updated || (members && (p.status?.machineCount ?? 0) === 0)) ready = false;
    if (p.spec.configuration?.name !== p.status?.configuration?.name) ready = false;
  }
  return { line: parts.join(' · '), ready: ready && updatedMembers >= expected };
}

function banner(ctx: Ctx): string {
  const { layout, ports, record } = ctx;
  return [
    '',
    `The cluster is up: ${record.masters} master${record.masters === 1 ? '' : 's'}, ${record.workers} worker${record.workers === 1 ? '' : 's'} (data in ${layout.dir}).`,
    '',
    `  export KUBECONFIG=${layout.adminKubeconfig}`,
    '  kubectl get mcp',
    '  kubectl get nodes',
    `  dashboard: http://127.0.0.1:${ports.dashboard}/`,
    `  metrics:   http://127.0.0.1:${ports.controllerMetrics}/metrics (controller), http://127.0.0.1:${ports.dashboard}/metrics (dashboard)`,
    `             ${nodeSpecs(record.masters, record.workers)
      .map(
        (n) =>
          `http://127.0.0.1:${daemonMetricsPort(ports, nodeSpecs(record.masters, record.workers), n.name)}/metrics (${n.name})`,
      )
      .join(', ')}`,
    `             every endpoint, for Prometheus file_sd: ${join(layout.dir, MetricsTargetsFile)}`,
    '  logs:      mco logs node/worker-0 -f, and ' + layout.logsDir,
    '',
    'Ctrl-C stops everything; `mco start` with the same --data-dir resumes it.',
    '',
  ].join('\n');
}

/** Whether the dashboard answers its page with 200. */
function dashboardAnswers(ctx: Ctx): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpGet({ host: '127.0.0.1', port: ctx.ports.dashboard, path: '/' }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => {
      resolve(false);
    });
    req.setTimeout(2000, () => req.destroy(new Error('timeout')));
  });
}

async function watchProgress(ctx: Ctx, client: ResourceClient, expected: number): Promise<void> {
  let last = '';
  let announced = false;
  while (!ctx.stop.signal.aborted) {
    try {
      const [pools, nodes] = await Promise.all([
        client.list<MachineConfigPool>(Resources.machineConfigPool),
        client.list<Node>(Resources.node),
      ]);
      const p = progressLine(pools.items, nodes.items, expected);
      if (p.line !== last) {
        ctx.io.out(`${p.line}\n`);
        last = p.line;
      }
      // The banner sends the user to the dashboard: it must answer first (it may be restarting).
      if (p.ready && !announced && (await dashboardAnswers(ctx))) {
        announced = true;
        writeFileSync(
          join(ctx.layout.dir, MetricsTargetsFile),
          `${JSON.stringify(metricsTargets(ctx.ports, nodeSpecs(ctx.record.masters, ctx.record.workers)), null, 2)}\n`,
        );
        ctx.io.out(banner(ctx));
      }
    } catch {
      // the API server may be restarting; the next look will tell
    }
    await sleep(1000);
  }
}

/** The order things stop in: nodes (their supervisors stop the daemons), the control plane, the API server. */
function stopOrder(ctx: Ctx): StopStage[] {
  const nodes = ctx.children.filter((c) => c.name.startsWith('node-'));
  const apiserver = ctx.children.filter((c) => c.name === 'apiserver');
  const controlPlane = ctx.children.filter((c) => !nodes.includes(c) && !apiserver.includes(c));
  return [
    { what: 'the nodes', processes: nodes, graceMs: NodeStopGraceMs },
    { what: 'the control plane', processes: controlPlane, graceMs: ControlPlaneStopGraceMs },
    { what: 'the API server', processes: apiserver, graceMs: ApiServerStopGraceMs },
  ];
}

/** Daemons (and first-boot steps) a node supervisor left running: it was killed, or it crashed. */
function nodeLeftovers(ctx: Ctx): number[] {
  const recorded = (file: string): number[] => {
    try {
      return Object.values(JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>);
    } catch {
      // absent, or being rewritten by a supervisor that just stopped: nothing to read
      return [];
    }
  };
  return ctx.children
    .filter((c) => c.name.startsWith('node-'))
    .flatMap((c) =>
      recorded(join(ctx.layout.nodeDir(c.name.slice('node-'.length)), 'state/processes.json')),
    )
    .filter((pid) => processAlive(pid) && runsFrom(pid, ctx.layout.dir));
}

async function shutdown(ctx: Ctx, reason: string): Promise<void> {
  const say = (line: string) => {
    ctx.io.err(`${line}\n`);
  };
  say(`\n${reason}: stopping the cluster…`);
  for (const pid of ctx.creating) killGroup(pid);
  await stopStages(stopOrder(ctx), say);
  const left = [...ctx.creating, ...nodeLeftovers(ctx)];
  if (left.length > 0) say(`killing what the node supervisors left: ${left.join(', ')}`);
  for (const pid of left) killGroup(pid);
  writeFileSync(ctx.layout.pidsFile, `${JSON.stringify({}, null, 2)}\n`);
  say('stopped');
}

/**
 * For an exit that did not go through `shutdown` (a fatal error ends the process): the same
 * order, synchronously, so no child outlives `mco start`.
 */
function shutdownNow(ctx: Ctx): void {
  const stages = stopOrder(ctx);
  const left = stages.flatMap((s) => s.processes).filter((c) => c.pid !== undefined);
  if (left.length === 0 && ctx.creating.size === 0) return;
  const say = (line: string) => {
    ctx.io.err(`${line}\n`);
  };
  say('exiting: stopping the cluster…');
  for (const pid of ctx.creating) killGroup(pid);
  stopStagesNow(stages, say);
  for (const pid of nodeLeftovers(ctx)) killGroup(pid);
  say('stopped');
}

function resolveRecord(
  options: StartOptions,
  saved: ClusterRecord | undefined,
  image: string,
): ClusterRecord {
  if (saved === undefined)
    return {
      masters: options.masters,
      workers: options.workers,
      portBase: options.portBase,
      bootImage: image,
    };
  const pick = (key: 'masters' | 'workers' | 'portBase') =>
    options.explicit.has(key) ? options[key] : saved[key];
  const record = {
    masters: pick('masters'),
    workers: pick('workers'),
    portBase: pick('portBase'),
    bootImage: saved.bootImage,
  };
  if (record.masters < saved.masters || record.workers < saved.workers)
    throw new CliError(
      `this cluster has ${saved.masters} masters and ${saved.workers} workers: it can grow, not shrink (remove the data folder to start over)`,
    );
  return record;
}

/** How long each stage of the stop waits before SIGKILL (the whole stop stays under 10 s). */
const NodeStopGraceMs = 5000;
const ControlPlaneStopGraceMs = 2500;
const ApiServerStopGraceMs = 2000;

/** The signals that stop the cluster: Ctrl-C, `kill`, and the terminal closing. */
const StopSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export async function runStart(options: StartOptions, terminal: CliIo): Promise<void> {
  // Refused here rather than by a controller restarting in a loop.
  if (options.drainTimeout !== undefined) parseGoDuration('--drain-timeout', options.drainTimeout);
  if (options.mcsCertValidity !== undefined)
    parseGoDuration('--mcs-cert-validity', options.mcsCertValidity);
  if (options.mcsCertRefresh !== undefined)
    parseGoDuration('--mcs-cert-refresh', options.mcsCertRefresh);
  const layout = clusterLayout(options.dataDir);
  // Traversable: Ignition and the nodes' services reach into DIR/nodes as other users.
  mkdirSync(layout.dir, { recursive: true, mode: 0o755 });
  mkdirSync(layout.logsDir, { recursive: true, mode: 0o700 });
  mkdirSync(layout.nodesDir, { recursive: true });
  const io = new StartLog(terminal, layout.log('start'), () => new Date());
  io.note(`mco start (PID ${process.pid}) in ${layout.dir}\n`);
  terminal.onOutputClosed?.((stream, error) => {
    io.note(
      `${stream} is closed (${(error as NodeJS.ErrnoException).code ?? error.message}); still running, telling only ${io.file}\n`,
    );
  });
  await stopLeftovers(layout, io);
  const saved = readRecord(layout);
  io.out(`${saved === undefined ? 'Creating' : 'Resuming'} the cluster in ${layout.dir}\n`);
  const image = saved?.bootImage ?? (await ensureBootImage(layout));
  const record = resolveRecord(options, saved, image);
  writeFileSync(layout.clusterFile, `${JSON.stringify(record, null, 2)}\n`);
  const ctx: Ctx = {
    io,
    layout,
    record,
    ports: clusterPorts(record.portBase),
    children: [],
    creating: new Set(),
    stop: new AbortController(),
    ...(options.drainTimeout === undefined ? {} : { drainTimeout: options.drainTimeout }),
    ...(options.mcsCertValidity === undefined ? {} : { mcsCertValidity: options.mcsCertValidity }),
    ...(options.mcsCertRefresh === undefined ? {} : { mcsCertRefresh: options.mcsCertRefresh }),
  };

  let stopping: Promise<void> | undefined;
  const stopOnce = (reason: string): Promise<void> => {
    if (stopping === undefined) {
      ctx.stop.abort();
      stopping = shutdown(ctx, reason);
    }
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping !== undefined) {
      io.err(`${signal} again: killing what is left\n`);
      for (const c of ctx.children) void c.kill();
      for (const pid of ctx.creating) killGroup(pid);
      return;
    }
    void stopOnce(signal);
  };
  // A bug must not leave the cluster running without its supervisor: stop it, then fail.
  const onFatal = (e: unknown) => {
    io.err(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    void stopOnce('fatal error').finally(() => process.exit(2));
  };
  const onExit = () => {
    shutdownNow(ctx);
  };
  for (const signal of StopSignals) process.on(signal, onSignal);
  process.on('uncaughtException', onFatal);
  process.on('exit', onExit);

  try {
    const client = await startApiServer(ctx);
    io.out(
      `API server: https://127.0.0.1:${ctx.ports.apiserver} (export KUBECONFIG=${layout.adminKubeconfig})\n`,
    );
    await prepareMcs(layout);
    await ensureInfrastructure(client, `https://127.0.0.1:${ctx.ports.apiserver}`);
    await seedMcsCertificates(client, layout.mcsDir);
    const projection = projectMcsCertificates(
      client,
      layout.mcsDir,
      () => {
        rewritePointerConfigs(ctx);
        io.note('the MCS CA bundle changed: pointer configs rewritten\n');
      },
      ctx.stop.signal,
    );
    await projection.synced;
    await ensureOsImageUrls(client, record.bootImage);
    await ensureInstallerSshConfigs(client);
    startControlPlane(ctx);
    io.out(`dashboard: http://127.0.0.1:${ctx.ports.dashboard}/\n`);
    const specs = nodeSpecs(record.masters, record.workers);
    const progress = watchProgress(ctx, client, specs.length);
    // Both pools at once: the MCS serves each as soon as it is rendered, and Ignition runs for all
    // new nodes in parallel (a worker does not need the master node, only the control plane).
    await Promise.all(
      (['master', 'worker'] as const).map(async (pool) => {
        const fresh = specs.filter(
          (s) => s.pool === pool && !existsSync(join(layout.nodeDir(s.name), 'node.json')),
        );
        if (fresh.length > 0) {
          await until(
            ctx,
            `the MCS to serve the ${pool} pool`,
            async () => ((await mcsStatus(ctx, pool)) === 200 ? true : undefined),
            180_000,
          );
          io.out(
            `creating ${fresh.map((s) => s.name).join(', ')} (Ignition from the ${pool} pointer config)\n`,
          );
          await Promise.all(fresh.map((s) => createNode(ctx, client, s)));
        }
        for (const s of specs.filter((x) => x.pool === pool))
          launch(ctx, `node-${s.name}`, ['node', 'run', '--dir', layout.nodeDir(s.name)]);
      }),
    );
    await progress;
  } catch (e) {
    if (!ctx.stop.signal.aborted) {
      // The terminal gets it from the entry point; the log would not.
      io.note(`error: ${errorText(e)}\n`);
      await stopOnce('error');
      throw e;
    }
  }
  await stopping;
  for (const signal of StopSignals) process.off(signal, onSignal);
  process.off('uncaughtException', onFatal);
  process.off('exit', onExit);
}

function count(flag: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min)
      throw new CliError(`${flag} ${value}: expected a whole number ≥ ${min}`);
    return n;
  };
}

export function startCommand(io: CliIo): Command {
  return new Command('start')
    .description(
      'Start the cluster in a box: API server, operator, controller, MCS, dashboard and simulated nodes',
    )
    .option('--data-dir <dir>', 'where the cluster lives (resumed when it exists)', DefaultDataDir)
    .option('--masters <n>', 'master nodes', count('--masters', 1), 1)
    .option('--workers <n>', 'worker nodes', count('--workers', 0), 2)
    .option(
      '--port-base <port>',
      'first of 7 consecutive ports (API server, MCS, dashboard, metrics)',
      count('--port-base', 1),
      DefaultPortBase,
    )
    .option(
      '--drain-timeout <duration>',
      "how long a drain may fail before the controller raises DrainFailed and mcc_drain_err (upstream's 1h)",
    )
    .option(
      '--mcs-cert-validity <duration>',
      "how long the MCS's signer and serving certificates are valid (upstream's 87600h)",
    )
    .option(
      '--mcs-cert-refresh <duration>',
      "how old they get before they rotate (upstream's 70080h; shorter rotates early)",
    )
    .addHelpText(
      'after',
      '\nThe highly available control plane on etcd is `mco ha up` (docs/ha.md).',
    )
    .action(
      async (
        opts: {
          dataDir: string;
          masters: number;
          workers: number;
          portBase: number;
          drainTimeout?: string;
          mcsCertValidity?: string;
          mcsCertRefresh?: string;
        },
        command: Command,
      ) => {
        const explicit = new Set<'masters' | 'workers' | 'portBase'>();
        for (const key of ['masters', 'workers', 'portBase'] as const)
          if (command.getOptionValueSource(key) === 'cli') explicit.add(key);
        await runStart({ ...opts, explicit }, io);
        // Every child has exited; an idle keep-alive socket must not keep this process alive.
        setTimeout(() => process.exit(0), 1000).unref();
      },
    );
}

/**
 * How `mco start` creates a node as a cloud would boot one: its Machine first, then `mco node
 * create` provisioned by Ignition from its pool's pointer config (kept current with the MCS CA
 * bundle), with the daemon and first-boot commands the node supervisor runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { describePointerConfigError, pointerConfig } from '../logic/pointer-config.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { CliError } from '../shell/cli-io.js';
import { daemonCommandLine } from '../simulator/daemon-command-line.js';
import { ensureMachine } from './box-machines.js';
import type { ClusterLayout } from './cluster-layout.js';
import { nodeSpecs, type NodeSpec } from './cluster-nodes.js';
import { daemonMetricsPort } from './cluster-ports.js';
import { BootRef, mcsCaBundle, mcsToken } from './start-cluster-objects.js';
import { McoBin, type StartContext } from './start-context.js';
import { killGroup } from './start-supervision.js';

/** Status of GET https://127.0.0.1:<mcs>/config/<pool> as Ignition 2.14 asks for it. */
export function mcsStatus(ctx: StartContext, pool: string): Promise<number> {
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

function writePointerConfig(ctx: StartContext, pool: string): string {
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

/** The pointer configs already written, again with the current bundle: new nodes trust it. */
export function rewritePointerConfigs(ctx: StartContext): void {
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

export async function createNode(
  ctx: StartContext,
  client: ResourceClient,
  spec: NodeSpec,
): Promise<void> {
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

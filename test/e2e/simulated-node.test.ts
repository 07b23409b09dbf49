/**
 * A simulated node end to end, with real processes and real tools: `mco apiserver` and `mco server`
 * (cluster mode) serve the worker pool; `mco node build-boot-image` commits the repository's
 * TestOS tree; `mco node create` deploys it into a real OSTree sysroot and lets the real Ignition
 * 2.14 provision it from the pool's pointer config; `mco node run` boots it, and its kubelet gets
 * its identity by TLS bootstrapping from the served bootstrap kubeconfig: a CSR that
 * `mco controller`'s approver approves (the node has a Machine), its signer signs and its node link
 * answers with the role label.
 *
 * The first boot runs a stand-in firstboot step (rename the encapsulated config, stage a kernel
 * argument, ask for a reboot), so the Node must only appear after that reboot. The daemon is a
 * stand-in process here (the daemon's own end-to-end tests run `mco daemon`). A reboot with a new
 * kernel argument switches to a new deployment. Every process is stopped by PID; nothing is left
 * under the temp folder.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CertificateSigningRequest } from '../../src/api/certificates/v1/certificate-signing-request.js';
import type { Node } from '../../src/api/core/v1/node.js';
import type { Pod } from '../../src/api/core/v1/pod.js';
import { HttpsResourceClient } from '../../src/adapters/https-resource-client.js';
import { ensureMachine } from '../../src/box/box-machines.js';
import { McoProcess } from '../support/mco-processes.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';
import { api, eventually, startApiServer, type ApiServerProcess } from './apiserver-harness.js';
import { controllerConfig, rendered, SshKey, UnitName, userFiles } from './mcs-fixtures.js';
import {
  makeCa,
  McoBin,
  RepoRoot,
  requireBuilt,
  startServer,
  type RunningServer,
} from './mcs-support.js';

const Mco = '/apis/machineconfiguration.openshift.io/v1';
const NodeName = 'worker-0';

let work: TmpDir;
let apiserver: ApiServerProcess;
let mcs: RunningServer;
let controller: McoProcess;
let nodeDir: string;
let root: string;
let supervisor: ChildProcess;
let supervisorLog = '';
let supervisorExit: Promise<number | null>;

function mco(args: readonly string[]): string {
  const r = spawnSync(process.execPath, [McoBin, ...args], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0)
    throw new Error(`mco ${args.join(' ')} exited ${String(r.status)}:\n${r.stderr}`);
  return r.stdout;
}

async function create(path: string, body: unknown): Promise<void> {
  const r = await api(apiserver, 'POST', path, {
    token: apiserver.token(),
    body: JSON.stringify(body),
    contentType: 'application/json',
  });
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.body}`);
}

async function get<T>(path: string): Promise<T> {
  const r = await api(apiserver, 'GET', path, { token: apiserver.token() });
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body}`);
  return r.json<T>();
}

async function getNode(): Promise<Node | undefined> {
  const r = await api(apiserver, 'GET', `/api/v1/nodes/${NodeName}`, { token: apiserver.token() });
  return r.status === 200 ? r.json<Node>() : undefined;
}

const ready = (node: Node | undefined) => node?.status?.conditions?.find((c) => c.type === 'Ready');

function booted(): { checksum: string; serial: number; bootId: string; kernelArguments: string[] } {
  return JSON.parse(readFileSync(join(nodeDir, 'state/booted.json'), 'utf8')) as ReturnType<
    typeof booted
  >;
}

function daemonPid(): number | undefined {
  const file = join(nodeDir, 'state/processes.json');
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as { daemon?: number }).daemon;
}

function alive(pid: number): boolean {
  // kill(0 or a negative PID) signals a process group, or every process: never a recorded daemon
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The running daemon's PID, once the supervisor has started it and recorded it: the kubelet
 * registers the Node (and reports it Ready) before the supervisor syncs the daemon's pod and
 * starts the daemon.
 */
async function runningDaemon(other = -1): Promise<number> {
  let pid = -1;
  await eventually(
    'the daemon to start',
    () => {
      pid = daemonPid() ?? -1;
      return pid !== other && alive(pid);
    },
    60_000,
  );
  return pid;
}

function ostreeStatus(): string {
  return execFileSync('ostree', ['admin', 'status', `--sysroot=${join(root, 'sysroot')}`], {
    encoding: 'utf8',
  });
}

function bootOptions(): string[] {
  const dir = join(root, 'sysroot/boot/loader/entries');
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .flatMap((t) => t.split('\n').filter((l) => l.startsWith('options ')));
}

beforeAll(async () => {
  requireBuilt();
  work = makeTmpDir('mco-simulated-node-');
  apiserver = await startApiServer({ storage: 'memory' });
  await create(`${Mco}/controllerconfigs`, controllerConfig());
  const worker = rendered('worker');
  await create(`${Mco}/machineconfigs`, worker.config);
  await create(`${Mco}/machineconfigpools`, {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name: 'worker' },
    spec: {
      machineConfigSelector: {
        matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' },
      },
      nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } },
      configuration: { name: worker.config.metadata.name },
    },
  });
  const pool = await get<Record<string, unknown>>(`${Mco}/machineconfigpools/worker`);
  const status = await api(apiserver, 'PUT', `${Mco}/machineconfigpools/worker/status`, {
    token: apiserver.token(),
    contentType: 'application/json',
    body: JSON.stringify({
      ...pool,
      status: { configuration: { name: worker.config.metadata.name } },
    }),
  });
  if (status.status !== 200) throw new Error(status.body);

  const ca = await makeCa();
  const serving = await ca.issue();
  const caFile = work.write('mcs/ca.crt', ca.certPem);
  const certFile = work.write('mcs/tls.crt', serving.certPem);
  const keyFile = work.write('mcs/tls.key', serving.keyPem);
  work.write('mcs/token/token', apiserver.token('bootstrap'));
  controller = new McoProcess('controller', [
    'controller',
    '--kubeconfig',
    apiserver.kubeconfig('controller'),
    '--controllers',
    'csr-signer,node-csr-approver,machine-node-link',
    '--cluster-signing-cert-file',
    join(apiserver.dataDir, 'ca.crt'),
    '--cluster-signing-key-file',
    join(apiserver.dataDir, 'ca.key'),
  ]);
  await ensureMachine(HttpsResourceClient.fromKubeconfig(apiserver.kubeconfig('admin')), {
    name: NodeName,
    role: 'worker',
    zone: 'zone-a',
  });
  work.write('mcs/token/ca.crt', apiserver.caPem);
  mcs = await startServer([
    '--cert',
    certFile,
    '--key',
    keyFile,
    '--kubeconfig',
    apiserver.kubeconfig('mcs'),
    '--apiserver-url',
    apiserver.url,
    '--bootstrap-token-dir',
    join(work.path, 'mcs/token'),
  ]);
  const pointer = mco([
    'pointer-config',
    '--pool',
    'worker',
    '--url',
    `https://127.0.0.1:${mcs.securePort}`,
    '--ca',
    caFile,
    '--spec-version',
    '3.3.0',
  ]);
  writeFileSync(join(work.path, 'worker.ign'), pointer);

  const repo = join(work.path, 'boot-repo');
  const checksum = mco([
    'node',
    'build-boot-image',
    '--rootfs',
    join(RepoRoot, 'images/rootfs/testos'),
    '--modes',
    join(RepoRoot, 'images/rootfs/testos.modes.json'),
    '--repo',
    repo,
    '--ref',
    'testos/x86_64/stable',
    '--os-version',
    '1',
  ]).trim();
  expect(checksum).toMatch(/^[0-9a-f]{64}$/);

  nodeDir = join(work.path, NodeName);
  root = join(nodeDir, 'rootfs');
  const mcoCli = `${process.execPath} ${McoBin}`;
  mco([
    'node',
    'create',
    '--dir',
    nodeDir,
    '--name',
    NodeName,
    '--boot-repo',
    repo,
    '--ref',
    'testos/x86_64/stable',
    '--zone',
    'zone-a',
    '--karg',
    'console=ttyS0',
    '--kubeconfig',
    apiserver.kubeconfig('admin'),
    '--pointer-config',
    join(work.path, 'worker.ign'),
    '--pods',
    '2',
    '--daemon-command',
    JSON.stringify([
      'sh',
      '-c',
      'echo "stand-in daemon for $0 on $1"; exec sleep 3600',
      '{name}',
      '{root}',
    ]),
    '--firstboot-command',
    JSON.stringify([
      'sh',
      '-c',
      'set -e; mv "$1/etc/ignition-machine-config-encapsulated.json" "$1/etc/ignition-machine-config-encapsulated.json.bak"; ' +
        `${mcoCli} node kargs --dir "$0" --append firstboot.pivot=1; ${mcoCli} node reboot --dir "$0" --reason "Completing firstboot provisioning"`,
      '{dir}',
      '{root}',
    ]),
  ]);

  supervisor = spawn(
    process.execPath,
    [McoBin, 'node', 'run', '--dir', nodeDir, '--heartbeat-seconds', '1'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  supervisor.stdout?.on('data', (c: Buffer) => (supervisorLog += c.toString()));
  supervisor.stderr?.on('data', (c: Buffer) => (supervisorLog += c.toString()));
  supervisorExit = new Promise((resolve) =>
    supervisor.once('exit', (code) => {
      resolve(code);
    }),
  );
  await eventually(
    'the Node to be Ready',
    async () => ready(await getNode())?.status === 'True',
    60_000,
  );
  await runningDaemon();
}, 240_000);

afterAll(async () => {
  const pid = supervisor.pid;
  if (pid !== undefined && supervisor.exitCode === null && supervisor.signalCode === null) {
    process.kill(pid, 'SIGTERM');
    await supervisorExit;
  }
  const daemon = daemonPid();
  if (daemon !== undefined && alive(daemon)) process.kill(daemon, 'SIGKILL');
  if (existsSync(join(nodeDir, 'node.json'))) mco(['node', 'delete', '--dir', nodeDir]);
  await mcs.stop();
  await controller.stop();
  await apiserver.dispose();
  work.remove();
}, 60_000);

describe('a simulated node provisioned by the real Ignition from the MCS', () => {
  it('the first boot ran the firstboot step and rebooted before the kubelet registered the Node', async () => {
    const b = booted();
    expect(b.serial).toBe(1);
    expect(b.kernelArguments).toEqual(['console=ttyS0', 'firstboot.pivot=1']);
    expect(existsSync(join(root, 'etc/ignition-machine-config-encapsulated.json'))).toBe(false);
    expect(existsSync(join(root, 'etc/ignition-machine-config-encapsulated.json.bak'))).toBe(true);
    expect(readFileSync(join(nodeDir, 'firstboot.log'), 'utf8')).toContain('reboot requested');
    // The Node only ever saw the second boot.
    const node = await getNode();
    expect(node?.status?.nodeInfo?.bootID).toBe(b.bootId);
    const logLines = supervisorLog
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(logLines.indexOf('first boot: rebooting')).toBeLessThan(
      logLines.indexOf('registered node'),
    );
    expect(logLines.filter((m) => m === 'booted')).toHaveLength(2);
  });

  it('joined through a CSR: approved by the node CSR approver, signed, its kubeconfig in the root', async () => {
    const csrs = await get<{ items: CertificateSigningRequest[] }>(
      '/apis/certificates.k8s.io/v1/certificatesigningrequests',
    );
    expect(csrs.items).toHaveLength(1);
    const csr = csrs.items[0]!;
    expect(csr.metadata.name).toMatch(/^node-csr-[A-Za-z0-9_-]{43}$/);
    expect(csr.spec).toMatchObject({
      signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
      username: 'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper',
      usages: ['digital signature', 'key encipherment', 'client auth'],
    });
    expect(csr.status?.conditions).toEqual([
      expect.objectContaining({
        type: 'Approved',
        status: 'True',
        reason: 'NodeCSRApprove',
        message: 'This CSR was approved by the Node CSR Approver (cluster-machine-approver)',
      }),
    ]);
    const certificate = Buffer.from(csr.status?.certificate ?? '', 'base64').toString();
    const kubeconfig = join(root, 'var/lib/kubelet/kubeconfig');
    expect(statSync(kubeconfig).mode & 0o777).toBe(0o600);
    const text = readFileSync(kubeconfig, 'utf8');
    const data = /client-certificate-data: (\S+)/.exec(text)?.[1] ?? '';
    expect(Buffer.from(data, 'base64').toString()).toBe(certificate);
    expect(existsSync(join(root, 'var/lib/kubelet/pki/kubelet-client.key.tmp'))).toBe(false);
    // the node had only the bootstrap credential Ignition wrote from the served config
    expect(readFileSync(join(root, 'etc/kubernetes/kubeconfig'), 'utf8')).toContain(
      `token: ${apiserver.token('bootstrap')}`,
    );
  });

  it('the Node is Ready with its labels and what it runs', async () => {
    await eventually(
      'node link to give the Node its role',
      async () => (await getNode())?.metadata.labels?.['node-role.kubernetes.io/worker'] === '',
      30_000,
    );
    const node = await getNode();
    expect(node?.metadata.labels).toMatchObject({
      'kubernetes.io/hostname': NodeName,
      'node-role.kubernetes.io/worker': '',
      'topology.kubernetes.io/zone': 'zone-a',
      'node.openshift.io/os_id': 'testos',
    });
    expect(ready(node)).toMatchObject({ status: 'True', reason: 'KubeletReady' });
    expect(node?.status?.nodeInfo).toMatchObject({
      osImage: 'TestOS 1 (simulated CoreOS)',
      kernelVersion: '6.1.0-testos',
      kubeletVersion: 'v1.29.5',
      operatingSystem: 'linux',
    });
    expect(node?.status?.addresses).toEqual([
      { type: 'InternalIP', address: '127.0.0.1' },
      { type: 'Hostname', address: NodeName },
    ]);
  });

  it('its workload pods exist, owned by a ReplicaSet, Running', async () => {
    await eventually('two running pods', async () => {
      const pods = await get<{ items: Pod[] }>(
        `/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3D${NodeName}`,
      );
      return pods.items.filter((p) => p.status?.phase === 'Running').length === 2;
    });
    const pods = await get<{ items: Pod[] }>(
      `/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3D${NodeName}`,
    );
    for (const pod of pods.items) {
      expect(pod.metadata.ownerReferences).toEqual([
        expect.objectContaining({
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `workload-${NodeName}`,
          controller: true,
        }),
      ]);
      expect(pod.status?.conditions).toContainEqual(
        expect.objectContaining({ type: 'Ready', status: 'True' }),
      );
    }
  });

  it('the files, the enabled unit and the SSH key from the served config are on the node', () => {
    for (const f of userFiles('worker')) {
      const path = join(root, f.path);
      expect(readFileSync(path, 'utf8')).toBe(f.text);
      expect(statSync(path).mode & 0o7777).toBe(f.mode);
    }
    // /usr/local is /var/usrlocal, as on CoreOS: it outlives deployments.
    expect(existsSync(join(root, 'var/usrlocal/bin/e2e-tool'))).toBe(true);
    const enabled = spawnSync('systemctl', [`--root=${root}`, 'is-enabled', UnitName], {
      encoding: 'utf8',
    });
    expect(enabled.stdout.trim()).toBe('enabled');
    expect(readlinkSync(join(root, `etc/systemd/system/multi-user.target.wants/${UnitName}`))).toBe(
      `/etc/systemd/system/${UnitName}`,
    );
    expect(readFileSync(join(root, 'home/core/.ssh/authorized_keys.d/ignition'), 'utf8')).toContain(
      SshKey,
    );
    expect(readFileSync(join(root, 'etc/passwd'), 'utf8')).toContain(
      'core:x:1000:1000::/home/core:/bin/sh',
    );
    expect(existsSync(join(root, 'etc/selinux/config'))).toBe(false);
  });

  it('the daemon runs with the node’s name and root, its output in daemon.log', () => {
    const pid = daemonPid();
    expect(pid).toBeDefined();
    expect(alive(pid ?? 0)).toBe(true);
    expect(readFileSync(join(nodeDir, 'daemon.log'), 'utf8')).toContain(
      `stand-in daemon for ${NodeName} on ${root}`,
    );
  });

  it('a reboot with a new kernel argument switches to a new deployment; the Node was NotReady meanwhile', async () => {
    const before = booted();
    const oldDaemon = await runningDaemon();
    const readyBefore = ready(await getNode());
    expect(mco(['node', 'kargs', '--dir', nodeDir, '--append', 'mco.e2e=1']).trim()).toBe(
      'console=ttyS0 firstboot.pivot=1 mco.e2e=1',
    );
    writeFileSync(join(root, 'etc/e2e/hand-made.conf'), 'made by hand\n');
    mco(['node', 'reboot', '--dir', nodeDir, '--reason', 'e2e kernel argument']);
    await eventually('the next boot', () => booted().bootId !== before.bootId, 30_000);
    await eventually(
      'the Node Ready again',
      async () => {
        const node = await getNode();
        return ready(node)?.status === 'True' && node?.status?.nodeInfo?.bootID === booted().bootId;
      },
      30_000,
    );

    const after = booted();
    expect(after.checksum).toBe(before.checksum);
    expect(after.serial).toBe(2);
    expect(after.kernelArguments).toEqual(['console=ttyS0', 'firstboot.pivot=1', 'mco.e2e=1']);
    const status = ostreeStatus().split('\n');
    expect(status[0]).toBe(`  testos ${after.checksum}.2`);
    expect(status[1]).toBe('    Version: 1');
    expect(status[3]).toBe(`  testos ${before.checksum}.1`);
    expect(bootOptions()).toContainEqual(
      expect.stringMatching(/^options console=ttyS0 firstboot\.pivot=1 mco\.e2e=1 ostree=/),
    );
    expect(readlinkSync(join(root, 'etc'))).toBe(
      `sysroot/ostree/deploy/testos/deploy/${after.checksum}.2/etc`,
    );
    // /etc came along into the new deployment.
    expect(readFileSync(join(root, 'etc/e2e/hand-made.conf'), 'utf8')).toBe('made by hand\n');
    expect(readFileSync(join(root, 'etc/e2e/worker-hello.conf'), 'utf8')).toBe('hello worker\n');

    expect(alive(oldDaemon)).toBe(false);
    await runningDaemon(oldDaemon);
    expect(ready(await getNode())?.lastTransitionTime).not.toBe(readyBefore?.lastTransitionTime);
    expect(supervisorLog).toContain(
      '"message":"rebooting: e2e kernel argument","msg":"node not ready"',
    );
  });

  it('SIGTERM stops the supervisor and its daemon; the Node reports NotReady', async () => {
    const daemon = await runningDaemon();
    const pid = supervisor.pid ?? 0;
    process.kill(pid, 'SIGTERM');
    expect(await supervisorExit).toBe(0);
    expect(alive(pid)).toBe(false);
    expect(alive(daemon)).toBe(false);
    expect(ready(await getNode())).toMatchObject({
      status: 'False',
      message: 'the node supervisor is stopping',
    });
    mco(['node', 'delete', '--dir', nodeDir]);
    expect(existsSync(nodeDir)).toBe(false);
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('mco-statoverride-'))).toEqual([]);
  });
});

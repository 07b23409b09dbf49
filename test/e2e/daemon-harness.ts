/**
 * A whole cluster of real processes for the daemon's end-to-end tests: `mco apiserver`,
 * `mco operator`, `mco controller`, `mco server` (cluster mode), and simulated nodes made with
 * `mco node create` (a real OSTree sysroot from the repository's TestOS boot image, provisioned by
 * the real Ignition from the worker pool's pointer config) and run with `mco node run` (kubelet,
 * first-boot step, `mco daemon --host ostree`, reboots). Nodes join by TLS bootstrapping: each has
 * a Machine, and the controller approves, signs and labels, as in the box. The first-boot step is
 * `mco daemon --once-from /etc/ignition-machine-config-encapsulated.json`.
 *
 * The OS image of the cluster (`baseOSContainerImage`) is the boot image itself,
 * `ostree-local:<repo>#<ref>`, so nodes boot into what their rendered config names. Every
 * process is stopped by PID; the temp folder is removed.
 */
import { KubeletKubeconfigPath } from '../../src/simulator/kubelet-credentials.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpsResourceClient } from '../../src/adapters/https-resource-client.js';
import type { ConfigMap } from '../../src/api/core/v1/config-map.js';
import type { Node } from '../../src/api/core/v1/node.js';
import type { Pod } from '../../src/api/core/v1/pod.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfig } from '../../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../../src/api/resource-refs.js';
import { ensureMachine } from '../../src/box/box-machines.js';
import { McoProcess } from '../support/mco-processes.js';
import { makeTmpDir, type TmpDir } from '../support/tmp-dir.js';
import { kubectl, startApiServer, type ApiServerProcess } from './apiserver-harness.js';
import {
  makeCa,
  McoBin,
  RepoRoot,
  requireBuilt,
  startServer,
  type RunningServer,
} from './mcs-support.js';
import { sleep, until } from '../support/until.js';
export { sleep, until };

const Namespace = 'openshift-machine-config-operator';
export const Minute = 60_000;
const BootRef = 'testos/x86_64/stable';
const InitialSshKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIInitialKeyOfTheDaemonE2e core@install';

function mcoAsync(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [McoBin, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`mco ${args.join(' ')} exited ${String(code)}:\n${err}`));
    });
  });
}

export interface SimNode {
  readonly name: string;
  readonly role: 'worker' | 'master';
  readonly dir: string;
  /** The node's `/`. */
  readonly root: string;
  readonly sysroot: string;
  supervisor: ChildProcess;
  supervisorLog: string;
  exited: Promise<void>;
}

export interface ClusterOptions {
  readonly nodes: number;
  readonly maxUnavailable?: number;
  /** Extra environment of each node's supervisor (inherited by its daemon): the crash drill. */
  readonly nodeEnv?: (index: number, dir: string) => Record<string, string>;
  readonly pods?: number;
  /** Master nodes `master-<i>`, listed in `nodes` after the workers (default 0). */
  readonly masters?: number;
  /**
   * The OS image the nodes boot and the cluster names (`baseOSContainerImage`), with the
   * repository holding its commit; default: the repository's TestOS as `ostree-local:`.
   */
  readonly bootImage?: { readonly image: string; readonly repo: string; readonly ref: string };
  /** `baseOSExtensionsContainerImage` of the cluster (default: none). */
  readonly extensionsImage?: string;
  /** Extra `mco operator` flags (e.g. `--follow-release-images`). */
  readonly operatorArgs?: readonly string[];
  /** The first-boot step: `mco daemon --once-from` (default) or `mco firstboot-complete-machineconfig`. */
  readonly firstboot?: 'once-from' | 'firstboot-command';
  /**
   * `mco node create`'s own daemon command line, given `--daemon-kubeconfig` (the
   * machine-config-daemon ServiceAccount's), instead of the harness's debug-logging one.
   */
  readonly defaultDaemon?: boolean;
}

export class DaemonCluster {
  readonly work: TmpDir;
  api!: ApiServerProcess;
  admin!: HttpsResourceClient;
  operator!: McoProcess;
  controller!: McoProcess;
  mcs!: RunningServer;
  readonly nodes: SimNode[] = [];
  osImage = '';
  repo = '';
  readonly #options: ClusterOptions;
  #mcCounter = 0;

  private constructor(options: ClusterOptions) {
    this.#options = options;
    this.work = makeTmpDir('mco-daemon-e2e-');
  }

  static async start(options: ClusterOptions): Promise<DaemonCluster> {
    requireBuilt();
    const c = new DaemonCluster(options);
    try {
      await c.#start();
    } catch (e) {
      await c.dispose();
      throw e;
    }
    return c;
  }

  kubectl(args: readonly string[], input?: string) {
    return kubectl(args, {
      kubeconfig: this.api.kubeconfig('admin'),
      cacheDir: join(this.work.path, 'kubectl-cache'),
      ...(input === undefined ? {} : { input }),
    });
  }

  async #start(): Promise<void> {
    const w = this.work.path;
    const boot = this.#options.bootImage;
    this.repo = boot?.repo ?? join(w, 'boot-repo');
    const build =
      boot !== undefined
        ? Promise.resolve('')
        : mcoAsync([
            'node',
            'build-boot-image',
            '--rootfs',
            join(RepoRoot, 'images/rootfs/testos'),
            '--modes',
            join(RepoRoot, 'images/rootfs/testos.modes.json'),
            '--repo',
            this.repo,
            '--ref',
            BootRef,
            '--os-version',
            '1',
          ]);
    this.osImage = boot?.image ?? `ostree-local:${this.repo}#${BootRef}`;
    this.api = await startApiServer({ storage: 'memory' });
    this.admin = HttpsResourceClient.fromKubeconfig(this.api.kubeconfig('admin'));
    const cm: ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: Namespace },
      data: {
        baseOSContainerImage: this.osImage,
        baseOSExtensionsContainerImage: this.#options.extensionsImage ?? '',
        osImageURL: '',
        releaseVersion: '4.17.0',
      },
    };
    const applied = await this.kubectl(['apply', '-f', '-'], JSON.stringify(cm));
    if (applied.code !== 0) throw new Error(applied.stderr);
    // the installer's SSH key MachineConfig: Ignition then creates `core`
    await this.applyMc('99-worker-ssh', {
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: [InitialSshKey] }] },
    });

    const ca = await makeCa();
    const serving = await ca.issue();
    const caFile = this.work.write('mcs/ca.crt', ca.certPem);
    const certFile = this.work.write('mcs/tls.crt', serving.certPem);
    const keyFile = this.work.write('mcs/tls.key', serving.keyPem);
    this.work.write('mcs/token/token', this.api.token('bootstrap'));
    this.work.write('mcs/token/ca.crt', this.api.caPem);

    this.operator = new McoProcess('operator', [
      'operator',
      '--kubeconfig',
      this.api.kubeconfig('operator'),
      '--release-version',
      '4.17.0',
      '--operator-image',
      'quay.io/openshift/mco:test',
      '--mcs-url',
      'https://127.0.0.1:22623',
      '--mcs-ca-file',
      caFile,
      '--poll-interval',
      '200ms',
      '--controller-config-timeout',
      '60s',
      '--required-pools-timeout-per-machine',
      '600s',
      ...(this.#options.operatorArgs ?? []),
    ]);
    this.controller = new McoProcess('controller', [
      'controller',
      '--kubeconfig',
      this.api.kubeconfig('controller'),
      '--render-delay',
      '200ms',
      '--node-update-delay',
      '0s',
      '--drain-update-delay',
      '0s',
      '--drain-requeue-delay',
      '2s',
      '--drain-evict-retry-delay',
      '1s',
      '--controllers',
      '*,csr-signer,node-csr-approver,machine-node-link',
      '--cluster-signing-cert-file',
      join(this.api.dataDir, 'ca.crt'),
      '--cluster-signing-key-file',
      join(this.api.dataDir, 'ca.key'),
    ]);
    const worker = await this.newTarget('worker', '');
    if (this.#options.maxUnavailable !== undefined)
      await this.admin.patch(
        Resources.machineConfigPool,
        'worker',
        { spec: { maxUnavailable: this.#options.maxUnavailable } },
        'merge',
      );
    this.mcs = await startServer([
      '--cert',
      certFile,
      '--key',
      keyFile,
      '--kubeconfig',
      this.api.kubeconfig('mcs'),
      '--apiserver-url',
      this.api.url,
      '--bootstrap-token-dir',
      join(w, 'mcs/token'),
    ]);
    const masters = this.#options.masters ?? 0;
    for (const pool of masters > 0 ? ['worker', 'master'] : ['worker']) {
      const pointer = await mcoAsync([
        'pointer-config',
        '--pool',
        pool,
        '--url',
        `https://127.0.0.1:${this.mcs.securePort}`,
        '--ca',
        caFile,
        '--spec-version',
        '3.3.0',
      ]);
      writeFileSync(join(w, `${pool}.ign`), pointer);
    }
    await build;
    const n = this.#options.nodes;
    await Promise.all([
      ...Array.from({ length: n }, (_, i) => this.#createNode(i, `worker-${i}`, 'worker')),
      ...Array.from({ length: masters }, (_, i) =>
        this.#createNode(n + i, `master-${i}`, 'master'),
      ),
    ]);
    for (let i = 0; i < n + masters; i++) this.#runNode(i);
    await this.waitPoolUpdated('worker', worker, n, 5 * Minute);
    if (masters > 0)
      await this.waitPoolUpdated('master', await this.newTarget('master', ''), masters, 5 * Minute);
  }

  /** Creates and starts one more worker (`worker-<i>`), booted from the cluster's boot image. */
  async addWorker(): Promise<SimNode> {
    const i = this.nodes.length;
    const name = `worker-${this.nodes.filter((x) => x.role === 'worker').length}`;
    await this.#createNode(i, name, 'worker');
    this.#runNode(i);
    const node = this.nodes[i];
    if (node === undefined) throw new Error(`no node ${i}`);
    return node;
  }

  async #createNode(i: number, name: string, role: SimNode['role']): Promise<void> {
    const dir = join(this.work.path, name);
    await ensureMachine(this.admin, { name, role, zone: `zone-${'abc'.charAt(i % 3)}` });
    const daemon = [
      process.execPath,
      McoBin,
      'daemon',
      '--node',
      '{name}',
      '--root',
      '{root}',
      // as upstream's DaemonSet: reads as machine-config-daemon, writes its Node as the node
      '--kubeconfig',
      this.api.kubeconfig('daemon'),
      '--node-kubeconfig',
      KubeletKubeconfigPath,
      '--host',
      'ostree',
      '--log-level',
      'debug',
    ];
    const firstboot =
      this.#options.firstboot === 'firstboot-command'
        ? [
            process.execPath,
            McoBin,
            'firstboot-complete-machineconfig',
            '--root',
            '{root}',
            '--host',
            'ostree',
          ]
        : [
            process.execPath,
            McoBin,
            'daemon',
            '--node',
            '{name}',
            '--root',
            '{root}',
            '--host',
            'ostree',
            '--once-from',
            '{root}/etc/ignition-machine-config-encapsulated.json',
          ];
    await mcoAsync([
      'node',
      'create',
      '--dir',
      dir,
      '--name',
      name,
      '--boot-repo',
      this.repo,
      '--ref',
      this.#options.bootImage?.ref ?? BootRef,
      '--boot-image',
      this.osImage,
      '--zone',
      `zone-${'abc'.charAt(i % 3)}`,
      '--karg',
      'console=ttyS0',
      '--kubeconfig',
      this.api.kubeconfig('admin'),
      '--pointer-config',
      join(this.work.path, `${role}.ign`),
      '--pods',
      String(this.#options.pods ?? 2),
      ...(this.#options.defaultDaemon === true
        ? ['--daemon-kubeconfig', this.api.kubeconfig('daemon')]
        : ['--daemon-command', JSON.stringify(daemon)]),
      '--firstboot-command',
      JSON.stringify(firstboot),
    ]);
    const root = join(dir, 'rootfs');
    this.nodes[i] = {
      name,
      role,
      dir,
      root,
      sysroot: join(root, 'sysroot'),
      supervisor: undefined as unknown as ChildProcess,
      supervisorLog: '',
      exited: Promise.resolve(),
    };
  }

  /** Powers a node off: its supervisor stops (the daemon with it), SIGKILL after 30 s. */
  async stopNode(n: SimNode): Promise<void> {
    if (n.supervisor.exitCode !== null || n.supervisor.signalCode !== null) return;
    n.supervisor.kill('SIGTERM');
    const t = setTimeout(() => n.supervisor.kill('SIGKILL'), 30_000);
    await n.exited;
    clearTimeout(t);
  }

  /** Starts a stopped node's supervisor again (a boot of what it has on disk). */
  startNode(n: SimNode): void {
    const i = this.nodes.indexOf(n);
    if (i < 0) throw new Error(`no node ${n.name}`);
    this.#runNode(i);
  }

  #runNode(i: number): void {
    const node = this.nodes[i];
    if (node === undefined) throw new Error(`no node ${i}`);
    const env = { ...process.env, ...this.#options.nodeEnv?.(i, node.dir) };
    const child = spawn(
      process.execPath,
      [McoBin, 'node', 'run', '--dir', node.dir, '--heartbeat-seconds', '2'],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout.on('data', (c: Buffer) => (node.supervisorLog += c.toString()));
    child.stderr.on('data', (c: Buffer) => (node.supervisorLog += c.toString()));
    node.supervisor = child;
    node.exited = new Promise((resolve) =>
      child.once('exit', () => {
        resolve();
      }),
    );
  }

  /** The daemon's log on `node` (all its runs). */
  daemonLog(node: SimNode): string {
    const f = join(node.dir, 'daemon.log');
    return existsSync(f) ? readFileSync(f, 'utf8') : '';
  }

  /** Applies a worker MachineConfig with kubectl (YAML through stdin). */
  async applyMc(
    name: string,
    config: Record<string, unknown>,
    spec: Record<string, unknown> = {},
  ): Promise<void> {
    const mc: MachineConfig = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      spec: { ...spec, config: { ignition: { version: '3.2.0' }, ...config } },
    };
    const r = await this.kubectl(['apply', '-f', '-'], JSON.stringify(mc));
    if (r.code !== 0) throw new Error(`kubectl apply ${name}: ${r.stderr}`);
  }

  async deleteMc(name: string): Promise<void> {
    const r = await this.kubectl(['delete', 'machineconfig', name]);
    if (r.code !== 0) throw new Error(`kubectl delete ${name}: ${r.stderr}`);
  }

  nextMcName(prefix: string): string {
    this.#mcCounter++;
    return `${prefix}-${String(this.#mcCounter)}`;
  }

  getPool(name: string): Promise<MachineConfigPool> {
    return this.admin.get<MachineConfigPool>(Resources.machineConfigPool, name);
  }

  getNode(name: string): Promise<Node> {
    return this.admin.get<Node>(Resources.node, name);
  }

  async pods(node: string): Promise<Pod[]> {
    const list = await this.admin.list<Pod>(Resources.pod, {
      namespace: 'default',
      fieldSelector: `spec.nodeName=${node}`,
    });
    return list.items;
  }

  /** Waits until the pool targets a config other than `old`; the new name. */
  newTarget(pool: string, old: string, timeoutMs = 2 * Minute): Promise<string> {
    return until(
      `pool ${pool} to render past ${old}`,
      async () => {
        const name = (await this.getPool(pool)).spec.configuration?.name;
        return name !== undefined && name !== '' && name !== old ? name : undefined;
      },
      timeoutMs,
    );
  }

  async waitPoolUpdated(
    pool: string,
    target: string,
    machines: number,
    timeoutMs = 5 * Minute,
  ): Promise<void> {
    await until(
      `pool ${pool} Updated at ${target}`,
      async () => {
        const p = await this.getPool(pool);
        const updated = p.status?.conditions?.find((c) => c.type === 'Updated');
        return updated?.status === 'True' &&
          p.status?.configuration?.name === target &&
          p.status.updatedMachineCount === machines
          ? true
          : undefined;
      },
      timeoutMs,
    );
  }

  async annotations(node: string): Promise<Readonly<Record<string, string>>> {
    return (await this.getNode(node)).metadata.annotations ?? {};
  }

  async state(node: string): Promise<{ state?: string; reason?: string; current?: string }> {
    const a = await this.annotations(node);
    return {
      ...(a[Annotation.state] === undefined ? {} : { state: a[Annotation.state] }),
      ...(a[Annotation.reason] === undefined ? {} : { reason: a[Annotation.reason] }),
      ...(a[Annotation.currentConfig] === undefined
        ? {}
        : { current: a[Annotation.currentConfig] }),
    };
  }

  /** Everything the cluster's processes printed, for a failure message. */
  diagnostics(): string {
    return [
      ...this.nodes.map(
        (n) =>
          `--- ${n.name} supervisor\n${n.supervisorLog.slice(-4000)}\n--- ${n.name} daemon\n${this.daemonLog(n).slice(-6000)}`,
      ),
      `--- controller\n${this.controller.output().slice(-4000)}`,
    ].join('\n');
  }

  async dispose(): Promise<void> {
    for (const n of this.nodes) {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when start failed
      if (n.supervisor !== undefined) await this.stopNode(n);
      const processes = join(n.dir, 'state/processes.json');
      if (existsSync(processes)) {
        for (const pid of Object.values(
          JSON.parse(readFileSync(processes, 'utf8')) as Record<string, number>,
        )) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
      if (existsSync(join(n.dir, 'node.json')))
        await mcoAsync(['node', 'delete', '--dir', n.dir]).catch(() => undefined);
    }
    await this.controller?.stop('SIGKILL');
    await this.operator?.stop('SIGKILL');
    await this.mcs?.stop();
    this.admin?.close();
    await this.api?.dispose();
    this.work.remove();
  }
}

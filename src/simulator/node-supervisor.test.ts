import { afterEach, describe, expect, it } from 'vitest';
import type { Node } from '../api/core/v1/node.js';
import type { Pod } from '../api/core/v1/pod.js';
import { Resources } from '../api/resource-refs.js';
import { FakeClient } from '../../test/support/fake-client.js';
import { silentLogger } from '../ports/logger.js';
import type {
  BootedOs,
  NodeDefinition,
  NodeMachine,
  ProvisionResult,
  RebootRequestRecord,
} from '../ports/node-machine.js';
import type {
  LaunchedProcess,
  LaunchOptions,
  ProcessExit,
  ProcessLauncher,
} from '../ports/process-launcher.js';
import { FakeClock, flushAsync } from '../../test/support/fake-clock.js';
import {
  createNode,
  EncapsulatedConfigPath,
  expandCommand,
  NodeSupervisor,
  ProvisioningError,
} from './node-supervisor.js';
import { fixedIdentity } from './kubelet-credentials.js';

const Definition: NodeDefinition = {
  name: 'worker-0',
  labels: { 'example.com/rack': 'r1' },
  zone: 'zone-a',
  bootImage: { repo: '/images/repo', ref: 'testos/stable' },
  kernelArguments: ['console=ttyS0'],
  nodeKubeconfig: '/nodes/worker-0/node.kubeconfig',
  pods: 2,
};

/** A machine in memory: each staged change makes the next boot's serial higher. */
class FakeMachine implements NodeMachine {
  readonly dir = '/nodes/worker-0';
  readonly root = '/nodes/worker-0/rootfs';
  readonly events: string[] = [];
  readonly files = new Set<string>();
  readonly requests: RebootRequestRecord[] = [];
  processes: Readonly<Record<string, number>> = {};
  staged: readonly string[] | undefined;
  serial = 0;
  kargs: readonly string[] = ['console=ttyS0'];
  provisionResult: ProvisionResult = { ok: true, output: '', enabledUnits: ['a.service'] };

  installed = () => Promise.resolve(true);
  install(): Promise<void> {
    this.events.push('install');
    return Promise.resolve();
  }
  definition = () => Promise.resolve(Definition);
  provision(config: string): Promise<ProvisionResult> {
    this.events.push(`provision ${config}`);
    return Promise.resolve(this.provisionResult);
  }
  boot(): Promise<BootedOs> {
    this.events.push(`boot ${this.serial}`);
    return Promise.resolve({
      checksum: 'c'.repeat(64),
      serial: this.serial,
      deployment: `ostree/deploy/testos/deploy/${'c'.repeat(64)}.${this.serial}`,
      kernelArguments: this.kargs,
      version: '1',
      bootId: `boot-${this.serial}`,
      osImage: 'TestOS 1 (simulated CoreOS)',
      osId: 'testos',
      kernelVersion: '6.1.0-testos',
    });
  }
  shutdown(): Promise<boolean> {
    this.events.push('shutdown');
    if (this.staged === undefined) return Promise.resolve(false);
    this.kargs = this.staged;
    this.staged = undefined;
    this.serial += 1;
    return Promise.resolve(true);
  }
  booted = () => Promise.resolve(undefined);
  exists = (path: string) => Promise.resolve(this.files.has(path));
  takeRebootRequest = () => Promise.resolve(this.requests.shift());
  logFile = (name: string) => `${this.dir}/${name}.log`;
  recordProcesses(pids: Readonly<Record<string, number>>): Promise<void> {
    this.processes = pids;
    return Promise.resolve();
  }
  reapStaleProcesses = () => Promise.resolve([]);
  destroy = () => Promise.resolve();
}

class FakeProcess implements LaunchedProcess {
  readonly pid: number;
  readonly argv: readonly string[];
  readonly exited: Promise<ProcessExit>;
  #exit: ProcessExit | undefined;
  #done!: (e: ProcessExit) => void;

  constructor(pid: number, argv: readonly string[]) {
    this.pid = pid;
    this.argv = argv;
    this.exited = new Promise((resolve) => {
      this.#done = resolve;
    });
  }
  running = () => this.#exit === undefined;
  exit(code: number | null, signal: string | null = null): void {
    if (this.#exit !== undefined) return;
    this.#exit = { code, signal };
    this.#done(this.#exit);
  }
  stop(): Promise<ProcessExit> {
    this.exit(null, 'SIGTERM');
    return this.exited;
  }
}

/** Launches fake processes; `behave` plays the program (e.g. a firstboot step). */
class FakeLauncher implements ProcessLauncher {
  readonly launched: FakeProcess[] = [];
  readonly logs: string[] = [];
  #pid = 1000;
  readonly #events: string[];
  readonly #behave: (p: FakeProcess) => void;

  constructor(events: string[], behave: (p: FakeProcess) => void = () => undefined) {
    this.#events = events;
    this.#behave = behave;
  }

  launch(argv: readonly string[], options: LaunchOptions): Promise<LaunchedProcess> {
    const p = new FakeProcess(++this.#pid, argv);
    this.launched.push(p);
    this.logs.push(options.logFile);
    this.#events.push(`launch ${argv[0] ?? ''}`);
    queueMicrotask(() => {
      this.#behave(p);
    });
    return Promise.resolve(p);
  }
}

const DaemonCommand = [
  'mco',
  'daemon',
  '--node',
  '{name}',
  '--root',
  '{root}',
  '--kubeconfig',
  '{kubeconfig}',
];

function setup(behave?: (p: FakeProcess, m: FakeMachine) => void) {
  const machine = new FakeMachine();
  const launcher = new FakeLauncher(machine.events, (p) => behave?.(p, machine));
  const clock = new FakeClock();
  const nodeClient = new FakeClient();
  const workloadClient = nodeClient;
  const supervisor = new NodeSupervisor({
    machine,
    launcher,
    clock,
    log: silentLogger,
    identity: fixedIdentity({ client: nodeClient, kubeconfig: '/nodes/worker-0/node.kubeconfig' }),
    workloadClient,
    daemonCommand: DaemonCommand,
    firstbootCommand: ['firstboot', '--root', '{root}'],
    heartbeatMs: 10_000,
    pollMs: 100,
    daemonRestartDelayMs: 5_000,
    firstbootRetryMs: 60_000,
  });
  return { machine, launcher, clock, nodeClient, supervisor };
}

const ready = (node: Node | undefined) => node?.status?.conditions?.find((c) => c.type === 'Ready');

let stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops) s.abort();
  stops = [];
});

describe('expandCommand', () => {
  it('substitutes the node placeholders, leaving other braces', () => {
    expect(
      expandCommand(
        ['x', '--n={name}', '{root}/etc', '{dir}', '{kubeconfig}', '{other}', '{kubelet-healthz}'],
        {
          name: 'n1',
          root: '/d/rootfs',
          dir: '/d',
          kubeconfig: '/d/node.kubeconfig',
        },
      ),
    ).toEqual([
      'x',
      '--n=n1',
      '/d/rootfs/etc',
      '/d',
      '/d/node.kubeconfig',
      '{other}',
      'http://localhost:10248/healthz',
    ]);
    expect(
      expandCommand(['--kubelet-healthz-endpoint', '{kubelet-healthz}'], {
        name: 'n1',
        root: '/r',
        dir: '/d',
        kubeconfig: '',
        'kubelet-healthz': 'http://127.0.0.1:4242/healthz',
      }),
    ).toEqual(['--kubelet-healthz-endpoint', 'http://127.0.0.1:4242/healthz']);
  });
});

describe('createNode', () => {
  it('installs, then provisions with the given config', async () => {
    const machine = new FakeMachine();
    const result = await createNode(machine, Definition, {
      ignitionConfig: '{"ignition":{}}',
      log: silentLogger,
    });
    expect(machine.events).toEqual(['install', 'provision {"ignition":{}}']);
    expect(result?.enabledUnits).toEqual(['a.service']);
  });

  it('a failed Ignition run is a ProvisioningError with its output', async () => {
    const machine = new FakeMachine();
    machine.provisionResult = {
      ok: false,
      failedStage: 'files',
      output: 'CRITICAL : boom',
      enabledUnits: [],
    };
    const created = createNode(machine, Definition, { ignitionConfig: '{}', log: silentLogger });
    await expect(created).rejects.toBeInstanceOf(ProvisioningError);
    await expect(created).rejects.toThrow(
      'Ignition failed in stage files; its output:\nCRITICAL : boom',
    );
  });
});

describe('NodeSupervisor boot', () => {
  it('registers the Node Ready with its labels and OS, schedules its pods, then starts the daemon', async () => {
    const { machine, launcher, clock, nodeClient, supervisor } = setup();
    await supervisor.boot();
    expect(machine.events).toEqual(['boot 0', 'launch mco']);
    expect(launcher.launched[0]?.argv).toEqual([
      'mco',
      'daemon',
      '--node',
      'worker-0',
      '--root',
      '/nodes/worker-0/rootfs',
      '--kubeconfig',
      '/nodes/worker-0/node.kubeconfig',
    ]);
    expect(launcher.logs).toEqual(['/nodes/worker-0/daemon.log']);
    expect(machine.processes).toEqual({ daemon: 1001 });
    const node = await nodeClient.get<Node>(Resources.node, 'worker-0');
    expect(node.metadata.labels).toEqual({
      'kubernetes.io/hostname': 'worker-0',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'beta.kubernetes.io/arch': 'amd64',
      'node.openshift.io/os_id': 'testos',
      'topology.kubernetes.io/zone': 'zone-a',
      'example.com/rack': 'r1',
    });
    expect(ready(node)).toMatchObject({ status: 'True', reason: 'KubeletReady' });
    expect(node.status?.nodeInfo).toMatchObject({
      bootID: 'boot-0',
      osImage: 'TestOS 1 (simulated CoreOS)',
      kernelVersion: '6.1.0-testos',
      kubeletVersion: 'v1.29.5',
    });
    await clock.advance(0);
    await flushAsync();
    const pods = (await nodeClient.list<Pod>(Resources.pod, { namespace: 'default' })).items;
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      expect(pod.spec?.nodeName).toBe('worker-0');
      expect(pod.metadata.ownerReferences).toEqual([
        expect.objectContaining({
          kind: 'ReplicaSet',
          name: 'workload-worker-0',
          controller: true,
        }),
      ]);
      expect(pod.status?.phase).toBe('Running');
    }
    await supervisor.shutdown('test over');
  });

  it('first boot: the firstboot step runs before the kubelet, and its reboot happens before the Node exists', async () => {
    const { machine, launcher, nodeClient, supervisor } = setup((p, m) => {
      if (p.argv[0] !== 'firstboot') return;
      // What firstboot-complete-machineconfig does: pivot (staged), rename the config, ask to reboot.
      m.staged = ['console=ttyS0', 'pivoted=1'];
      m.files.delete(EncapsulatedConfigPath);
      m.requests.push({ reason: 'Completing firstboot provisioning', requestedAt: 'now' });
      p.exit(0);
    });
    machine.files.add(EncapsulatedConfigPath);
    const booted = await supervisor.boot();
    expect(machine.events).toEqual([
      'boot 0',
      'launch firstboot',
      'shutdown',
      'boot 1',
      'launch mco',
    ]);
    expect(launcher.launched[0]?.argv).toEqual(['firstboot', '--root', '/nodes/worker-0/rootfs']);
    expect(booted.kernelArguments).toEqual(['console=ttyS0', 'pivoted=1']);
    const nodeWrites = nodeClient.writes.filter((w) => w.kind === 'Node');
    expect(nodeWrites[0]).toMatchObject({ verb: 'create', name: 'worker-0' });
    const node = await nodeClient.get<Node>(Resources.node, 'worker-0');
    expect(node.status?.nodeInfo?.bootID).toBe('boot-1');
    await supervisor.shutdown('test over');
  });

  it('first boot: a failing step is retried after a minute and the kubelet waits for it', async () => {
    let runs = 0;
    const { machine, clock, nodeClient, supervisor } = setup((p, m) => {
      if (p.argv[0] !== 'firstboot') return;
      runs += 1;
      if (runs === 2) m.files.delete(EncapsulatedConfigPath);
      p.exit(runs === 1 ? 1 : 0);
    });
    machine.files.add(EncapsulatedConfigPath);
    let done = false;
    const booting = supervisor.boot().then(() => {
      done = true;
    });
    await clock.advance(59_000);
    expect(runs).toBe(1);
    expect(done).toBe(false);
    expect(nodeClient.writes).toEqual([]);
    await clock.advance(1_000);
    await booting;
    expect(runs).toBe(2);
    expect(machine.events).toEqual([
      'boot 0',
      'launch firstboot',
      'launch firstboot',
      'launch mco',
    ]);
    await supervisor.shutdown('test over');
  });
});

describe('NodeSupervisor run', () => {
  it('a reboot request: NotReady, daemon stopped, staged change deployed, booted again, Ready', async () => {
    const { machine, launcher, clock, nodeClient, supervisor } = setup();
    const stop = new AbortController();
    stops.push(stop);
    const running = supervisor.run(stop.signal);
    await clock.advanceUntil(() => launcher.launched.length === 1, 1_000);
    const firstDaemon = launcher.launched[0];
    machine.staged = ['console=ttyS0', 'mco.karg=1'];
    // The Node as the kubelet leaves it when the supervisor reads the request.
    const statuses: string[] = [];
    const updateStatus = nodeClient.updateStatus.bind(nodeClient);
    nodeClient.updateStatus = (ref, object) => {
      const c = ready(object);
      statuses.push(`${c?.status ?? ''} ${c?.message ?? ''}`);
      return updateStatus(ref, object);
    };
    machine.requests.push({
      reason: 'Node will reboot into config rendered-worker-2',
      requestedAt: 'now',
    });
    await clock.advanceUntil(() => launcher.launched.length === 2, 1_000);
    expect(firstDaemon?.running()).toBe(false);
    expect(machine.events).toEqual(['boot 0', 'launch mco', 'shutdown', 'boot 1', 'launch mco']);
    expect(statuses).toEqual([
      'False rebooting: Node will reboot into config rendered-worker-2',
      'True kubelet is posting ready status',
    ]);
    const node = await nodeClient.get<Node>(Resources.node, 'worker-0');
    expect(node.status?.nodeInfo?.bootID).toBe('boot-1');
    expect(supervisor.boots).toBe(2);
    stop.abort();
    await running;
    expect(machine.events.slice(-1)).toEqual(['shutdown']);
    expect(ready(await nodeClient.get<Node>(Resources.node, 'worker-0'))).toMatchObject({
      status: 'False',
      reason: 'KubeletNotReady',
      message: 'the node supervisor is stopping',
    });
    expect(launcher.launched.every((p) => !p.running())).toBe(true);
  });

  it('a daemon that exits without asking for a reboot is started again after the delay', async () => {
    const { launcher, clock, supervisor } = setup();
    const stop = new AbortController();
    stops.push(stop);
    const running = supervisor.run(stop.signal);
    await clock.advanceUntil(() => launcher.launched.length === 1, 1_000);
    launcher.launched[0]?.exit(2);
    await clock.advance(4_000);
    expect(launcher.launched).toHaveLength(1);
    await clock.advanceUntil(() => launcher.launched.length === 2, 2_000);
    expect(launcher.launched[1]?.running()).toBe(true);
    stop.abort();
    await running;
  });

  it('heartbeats keep Ready=True fresh; an unschedulable node gets no new pods', async () => {
    const { clock, nodeClient, supervisor } = setup();
    await supervisor.boot();
    await clock.advance(0);
    const first = ready(await nodeClient.get<Node>(Resources.node, 'worker-0'));
    const pods = await nodeClient.list<Pod>(Resources.pod, { namespace: 'default' });
    for (const pod of pods.items)
      await nodeClient.delete(Resources.pod, pod.metadata.name ?? '', 'default');
    const node = await nodeClient.get<Node>(Resources.node, 'worker-0');
    await nodeClient.update(Resources.node, { ...node, spec: { unschedulable: true } });
    await clock.advance(10_000);
    const later = ready(await nodeClient.get<Node>(Resources.node, 'worker-0'));
    expect(later?.lastHeartbeatTime).toBe('2026-11-29T09:15:10Z');
    expect(later?.lastTransitionTime).toBe(first?.lastTransitionTime);
    expect((await nodeClient.list<Pod>(Resources.pod, { namespace: 'default' })).items).toEqual([]);
    await supervisor.shutdown('test over');
  });

  it('a staged change that fails to deploy: the node boots what it booted before', async () => {
    const { machine, launcher, clock, supervisor } = setup();
    const stop = new AbortController();
    stops.push(stop);
    const running = supervisor.run(stop.signal);
    await clock.advanceUntil(() => launcher.launched.length === 1, 1_000);
    machine.shutdown = () => {
      machine.events.push('shutdown (fails)');
      return Promise.reject(new Error('ostree admin deploy: error: No space left on device'));
    };
    machine.requests.push({ reason: 'update', requestedAt: 'now' });
    await clock.advanceUntil(() => launcher.launched.length === 2, 1_000);
    expect(machine.events).toEqual([
      'boot 0',
      'launch mco',
      'shutdown (fails)',
      'boot 0',
      'launch mco',
    ]);
    stop.abort();
    await running;
  });

  it('registration is retried with backoff while the API server cannot be reached', async () => {
    const { machine, clock, nodeClient, supervisor } = setup();
    let failures = 2;
    const get = nodeClient.get.bind(nodeClient);
    nodeClient.get = (ref, name, namespace) => {
      if (failures > 0) {
        failures -= 1;
        return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6443'));
      }
      return get(ref, name, namespace);
    };
    let done = false;
    const booting = supervisor.boot().then(() => {
      done = true;
    });
    await clock.advance(1_000);
    expect(done).toBe(false);
    await clock.advance(2_000);
    await booting;
    expect(machine.events).toEqual(['boot 0', 'launch mco']);
    expect(ready(await nodeClient.get<Node>(Resources.node, 'worker-0'))?.status).toBe('True');
    await supervisor.shutdown('test over');
  });
});

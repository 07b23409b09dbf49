/**
 * bench/rollout: how close a rollout comes to the ideal time, with the subject's `mco apiserver`
 * and `mco controller` as processes on the system core and N nodes played by in-process daemons
 * (test/support/node-agents.ts, on the load generator's core) that take a fixed time d to apply a
 * config.
 *
 * With maxUnavailable m, nodes update in ceil(N / m) waves of d each at best, so the ideal is
 * ceil(N / m) · d. The bench applies a MachineConfig and measures the wall time until the pool is
 * Updated with every node on the new config. Rows P3, per N:
 * - the wall time against the ideal (goal ≤ 1.5× at low load);
 * - control-plane CPU-seconds (API server + controller, from /proc/<pid>/stat) per 1,000 node
 *   updates (goal ≤ 4), and each apart;
 * - API requests per node update (goal ≤ 8), the controller's and the nodes' apart: counted in the
 *   API server process by a preload (support/request-counter.ts, Node's `http.server.request.start`
 *   diagnostics channel, per bearer token), so any checkout is counted the same way; the nodes'
 *   share is counted in this process. The API server's `apiserver_request_total` (less the
 *   bench's polling), where it has one, is printed beside it as a cross-check. The controller's
 *   requests by verb and resource follow the table;
 * - the most nodes seen unavailable at once (never more than m), and where the time goes
 *   (first node targeted, targeted → drained, Done → next targeted).
 *
 * The controller runs with its event delays at 0 (`--render-delay`, `--node-update-delay`,
 * `--drain-update-delay`): upstream's 5 s delays would add about 3 × 5 s per wave and measure the
 * delays rather than the controller. The operator is not run: the bench writes the pools, the
 * osimageurl ConfigMap and the ControllerConfig itself, so the operator's MachineConfigNode writes
 * do not load the server.
 *
 * Run: node dist/bench/rollout.js [--nodes 100,1000 --apply-ms 200 --max-unavailable 10%
 *      --storage memory] [--mco DIR]… [--repeats 3]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createKubeClient } from '../src/adapters/kube-client.js';
import type { ConfigMap } from '../src/api/core/v1/config-map.js';
import type { ControllerConfig } from '../src/api/machineconfiguration/v1/controller-config.js';
import type { MachineConfig } from '../src/api/machineconfiguration/v1/machine-config.js';
import type { MachineConfigPool } from '../src/api/machineconfiguration/v1/machine-config-pool.js';
import { Resources } from '../src/api/resource-refs.js';
import { applyControllerConfig } from '../src/logic/operator/controller-config.js';
import { maxUnavailable } from '../src/logic/rollout/max-unavailable.js';
import { isUnavailableForUpdate } from '../src/logic/rollout/node-state.js';
import { builtInPool } from '../src/logic/pools/built-in-pools.js';
import type { ResourceClient } from '../src/ports/resource-client.js';
import { McoVersion } from '../src/version.js';
import { BenchApiServer, McoProcess } from '../test/support/mco-processes.js';
import { NodeAgents } from '../test/support/node-agents.js';
import { until } from '../test/support/until.js';
import { requestTotal, targetFromKubeconfig } from './support/api-target.js';
import {
  Bench,
  type BenchArgs,
  BenchOptions,
  type Figures,
  type RowDef,
  type Subject,
} from './support/bench-harness.js';

const Namespace = 'openshift-machine-config-operator';
const Release = '4.17.0';
const OsImage = 'quay.io/openshift/os@sha256:bench';

interface RolloutOptions {
  readonly nodes: number[];
  readonly applyMs: number;
  readonly maxUnavailable: number | string;
  readonly storage: 'memory' | 'sqlite';
}

function options(): RolloutOptions & { readonly common: BenchArgs } {
  const { values } = parseArgs({
    options: {
      ...BenchOptions,
      nodes: { type: 'string', default: '100,1000' },
      'apply-ms': { type: 'string', default: '200' },
      'max-unavailable': { type: 'string', default: '10%' },
      storage: { type: 'string', default: 'memory' },
    },
  });
  const mu = values['max-unavailable'];
  return {
    common: values,
    nodes: values.nodes.split(',').map(Number),
    applyMs: Number(values['apply-ms']),
    maxUnavailable: /^\d+$/.test(mu) ? Number(mu) : mu,
    storage: values.storage === 'sqlite' ? 'sqlite' : 'memory',
  };
}

/** The objects the operator would write: pools, osimageurl ConfigMap, ControllerConfig. */
async function seedCluster(
  client: ResourceClient,
  server: BenchApiServer,
  mu: number | string,
): Promise<void> {
  const cm: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: Namespace },
    data: {
      baseOSContainerImage: OsImage,
      baseOSExtensionsContainerImage: OsImage,
      osImageURL: '',
      releaseVersion: Release,
    },
  };
  await client.create(Resources.configMap, cm);
  const { readFileSync } = await import('node:fs');
  const ca = readFileSync(server.caFile).toString('base64');
  const cc = applyControllerConfig(undefined, {
    osImages: {
      baseOSContainerImage: OsImage,
      baseOSExtensionsContainerImage: OsImage,
      osImageURL: '',
      releaseVersion: Release,
    },
    releaseVersion: Release,
    operatorVersion: McoVersion.raw,
    rootCAData: ca,
    kubeAPIServerServingCAData: ca,
  });
  if (cc !== undefined) await client.create<ControllerConfig>(Resources.controllerConfig, cc);
  await client.create(Resources.machineConfigPool, builtInPool('master'));
  const worker = builtInPool('worker');
  await client.create<MachineConfigPool>(Resources.machineConfigPool, {
    ...worker,
    spec: { ...worker.spec, maxUnavailable: mu },
  });
}

function workerConfig(name: string): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
    spec: {
      config: {
        ignition: { version: '3.2.0' },
        storage: {
          files: [{ path: `/etc/${name}`, mode: 420, contents: { source: 'data:,bench' } }],
        },
      },
    },
  };
}

interface Phases {
  /** Targeted (agent sees desiredConfig) → drain done (lastAppliedDrain=drain-…). */
  readonly drainMs: number;
  /** Applied → uncordoned and Done, minus nothing (d excluded). */
  readonly uncordonMs: number;
  /** A node Done → the next node targeted (how fast the controller refills a freed slot). */
  readonly refillMs: number;
  /** MachineConfig applied → first / last node targeted. */
  readonly firstTargetedMs: number;
  readonly lastTargetedMs: number;
}

interface RunResult {
  readonly phases: Phases;
  readonly benchCpu: number;
  readonly nodes: number;
  readonly maxUnavailable: number;
  readonly wallMs: number;
  readonly idealMs: number;
  readonly controllerCpu: number;
  readonly apiserverCpu: number;
  readonly maxSeenUnavailable: number;
  /** Requests of the nodes (agents) during the rollout, counted in this process. */
  readonly nodeRequests: number;
  /** Requests of the controller and the nodes, from the server's metrics; undefined without. */
  readonly serverRequests: number | undefined;
  /** The controller's requests, counted in the API server process. */
  readonly controllerRequests: number;
  /** … by `<METHOD> <resource>`. */
  readonly controllerKinds: Record<string, number>;
}

/** The preload that counts requests in the API server process (support/request-counter.ts). */
const CounterPreload = new URL('./support/request-counter.js', import.meta.url);

/** `mco` argv with the request counter preloaded, its port written to `portFile`. */
function withCounter(command: readonly string[], portFile: string): string[] {
  const bin = command[command.length - 1] ?? '';
  const preload = `${CounterPreload.href}?out=${encodeURIComponent(portFile)}`;
  return [...command.slice(0, -1), '--import', preload, bin];
}

interface Counted {
  readonly byToken: Record<string, number>;
  readonly byTokenAndKind: Record<string, Record<string, number>>;
}

async function readCounts(portFile: string): Promise<Counted> {
  const port = await until('the request counter', () => {
    try {
      const text = readFileSync(portFile, 'utf8');
      return Promise.resolve(text === '' ? undefined : text);
    } catch {
      return Promise.resolve(undefined);
    }
  });
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: Number(port), path: '/' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Counted);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** after − before, per key (keys only in `after` count from 0). */
function difference(
  after: Record<string, number> | undefined,
  before: Record<string, number> | undefined,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after ?? {})) {
    const d = v - (before?.[k] ?? 0);
    if (d !== 0) out[k] = d;
  }
  return out;
}

/** A client that counts the requests made through it (a watch counts once). */
function counted(client: ResourceClient, counter: { requests: number }): ResourceClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        counter.requests += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function run(n: number, opts: RolloutOptions, subject: Subject): Promise<RunResult> {
  const counterDir = mkdtempSync(join(tmpdir(), 'mco-bench-counter-'));
  const portFile = join(counterDir, 'port');
  const server = await BenchApiServer.start(
    opts.storage,
    withCounter(bench.mcoCommand(subject), portFile),
  );
  const admin = createKubeClient({ kubeconfigPath: server.kubeconfig('admin') });
  const metricsTarget = targetFromKubeconfig(server.kubeconfig('admin'));
  const controllerToken = targetFromKubeconfig(server.kubeconfig('controller')).token ?? '';
  const polls = { requests: 0 };
  const nodeRequests = { requests: 0 };
  const client = counted(admin, polls);
  const controller = new McoProcess(
    'controller',
    [
      'controller',
      '--kubeconfig',
      server.kubeconfig('controller'),
      '--render-delay',
      '0s',
      '--node-update-delay',
      '0s',
      '--drain-update-delay',
      '0s',
      '--log-level',
      'warn',
    ],
    bench.mcoCommand(subject),
  );
  const agents = new NodeAgents({
    client: counted(admin, nodeRequests),
    applyMs: opts.applyMs,
    createParallel: 64,
  });
  try {
    await seedCluster(client, server, opts.maxUnavailable);
    const initial = await until(
      'the worker pool to render',
      async () => {
        const p = await client.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
        return p.spec.configuration?.name;
      },
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    const names = Array.from({ length: n }, (_, i) => `worker-${String(i).padStart(4, '0')}`);
    await agents.add(
      names.map((name, i) => ({ name, role: 'worker', config: initial, zone: `zone-${i % 3}` })),
    );
    await until(
      `the pool to count ${n} updated machines`,
      async () => {
        const p = await client.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
        return p.status?.updatedMachineCount === n ? true : undefined;
      },
      { timeoutMs: 300_000, intervalMs: 20 },
    );
    const pool = await client.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
    const m = maxUnavailable(pool, n);
    if (!m.ok) throw new Error('invalid maxUnavailable');
    let maxSeen = 0;
    const sampler = setInterval(() => {
      const down = names.filter((x) => {
        const node = agents.cached(x);
        return node !== undefined && isUnavailableForUpdate(node);
      }).length;
      maxSeen = Math.max(maxSeen, down);
    }, 100);

    const benchBefore = process.cpuUsage();
    const cpuBefore = controller.cpuSeconds() ?? 0;
    const apiBefore = server.process.cpuSeconds() ?? 0;
    const requestsBefore = await requestTotal(metricsTarget);
    const countedBefore = await readCounts(portFile);
    const pollsBefore = polls.requests;
    const nodesBefore = nodeRequests.requests;
    const started = performance.now();
    const appliedAt = Date.now();
    await client.create(Resources.machineConfig, workerConfig('50-bench'));
    const target = await until(
      'the new rendered config',
      async () => {
        const p = await client.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
        const t = p.spec.configuration?.name;
        return t !== undefined && t !== initial ? t : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    await until(
      'the pool to be Updated',
      async () => {
        const p = await client.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');
        const updated = p.status?.conditions?.find((c) => c.type === 'Updated')?.status === 'True';
        return updated &&
          p.status?.configuration?.name === target &&
          p.status.updatedMachineCount === n
          ? true
          : undefined;
      },
      { timeoutMs: 3_600_000, intervalMs: 20 },
    );
    const wallMs = performance.now() - started;
    clearInterval(sampler);
    const benchCpu = process.cpuUsage(benchBefore);
    const apiserverCpu = (server.process.cpuSeconds() ?? 0) - apiBefore;
    const controllerCpu = (controller.cpuSeconds() ?? 0) - cpuBefore;
    const pollRequests = polls.requests - pollsBefore;
    const countedAfter = await readCounts(portFile);
    const requestsAfter = await requestTotal(metricsTarget);
    return {
      phases: phases(agents, opts.applyMs, appliedAt),
      benchCpu: (benchCpu.user + benchCpu.system) / 1e6,
      nodes: n,
      maxUnavailable: m.value,
      wallMs,
      idealMs: Math.ceil(n / m.value) * opts.applyMs,
      controllerCpu,
      apiserverCpu,
      maxSeenUnavailable: maxSeen,
      nodeRequests: nodeRequests.requests - nodesBefore,
      // the API server's count over the rollout, less the bench's polling (the nodes stay in)
      serverRequests:
        requestsBefore === undefined || requestsAfter === undefined
          ? undefined
          : requestsAfter - requestsBefore - pollRequests,
      controllerRequests:
        (countedAfter.byToken[controllerToken] ?? 0) -
        (countedBefore.byToken[controllerToken] ?? 0),
      controllerKinds: difference(
        countedAfter.byTokenAndKind[controllerToken],
        countedBefore.byTokenAndKind[controllerToken],
      ),
    };
  } finally {
    await agents.stop();
    await controller.stop('SIGTERM');
    await server.dispose();
    rmSync(counterDir, { recursive: true, force: true });
  }
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Mean time per protocol phase, from the agents' own timeline. */
function phases(agents: NodeAgents, applyMs: number, appliedAt: number): Phases {
  const done = agents.updates.filter((u) => u.doneAt !== undefined && u.drainedAt !== undefined);
  const starts = agents.updates.map((u) => u.startedAt).sort((a, b) => a - b);
  const refill = done.map((u) => {
    const next = starts.find((s) => s >= (u.doneAt ?? 0));
    return next === undefined ? undefined : next - (u.doneAt ?? 0);
  });
  return {
    drainMs: mean(done.map((u) => (u.drainedAt ?? 0) - u.startedAt)),
    uncordonMs: mean(done.map((u) => (u.doneAt ?? 0) - (u.drainedAt ?? 0) - applyMs)),
    refillMs: mean(refill.filter((x): x is number => x !== undefined)),
    firstTargetedMs: (starts[0] ?? appliedAt) - appliedAt,
    lastTargetedMs: (starts[starts.length - 1] ?? appliedAt) - appliedAt,
  };
}

const NoCounter = 'n/a: no apiserver_request_total at /metrics';

function figures(r: RunResult): Figures {
  const perNode = (x: number | undefined): number | string =>
    x === undefined ? NoCounter : x / r.nodes;
  const n = String(r.nodes);
  const kinds = Object.fromEntries(
    Object.entries(r.controllerKinds).map(([k, v]) => [`kind${n} ${k}`, v / r.nodes]),
  );
  return {
    ...kinds,
    [`wall${n}`]: r.wallMs / 1000,
    [`ideal${n}`]: r.idealMs / 1000,
    [`cpu${n}`]: ((r.apiserverCpu + r.controllerCpu) * 1000) / r.nodes,
    [`apiCpu${n}`]: r.apiserverCpu,
    [`controllerCpu${n}`]: r.controllerCpu,
    [`requests${n}`]: (r.controllerRequests + r.nodeRequests) / r.nodes,
    [`serverRequests${n}`]: perNode(r.serverRequests),
    [`controllerRequests${n}`]: r.controllerRequests / r.nodes,
    [`nodeRequests${n}`]: perNode(r.nodeRequests),
    [`maxUnavailable${n}`]: r.maxSeenUnavailable,
    [`firstTargeted${n}`]: r.phases.firstTargetedMs / 1000,
    [`drain${n}`]: r.phases.drainMs,
    [`refill${n}`]: r.phases.refillMs,
    [`benchCpu${n}`]: r.benchCpu,
  };
}

function rows(n: number, m: number): RowDef[] {
  const at = `${n.toLocaleString('en-US')} nodes`;
  return [
    {
      id: 'P3',
      measure: `rollout ${at}, maxUnavailable ${m}, d = ${opts.applyMs} ms`,
      unit: 's',
      ours: `wall${n}`,
      baseline: { label: `ideal ceil(${n}/${m})·d`, key: `ideal${n}` },
      goal: { on: 'ratio', op: '<=', value: 1.5, note: 'at low load' },
    },
    {
      id: 'P3',
      measure: `control-plane CPU per 1,000 node updates (${at})`,
      unit: 'CPU-s',
      ours: `cpu${n}`,
      goal: { on: 'ours', op: '<=', value: 4 },
    },
    { id: 'P3', measure: `API server CPU (${at})`, unit: 'CPU-s', ours: `apiCpu${n}` },
    { id: 'P3', measure: `controller CPU (${at})`, unit: 'CPU-s', ours: `controllerCpu${n}` },
    {
      id: 'P3',
      measure: `API requests per node update, controller + node (${at})`,
      unit: 'requests',
      ours: `requests${n}`,
      goal: { on: 'ours', op: '<=', value: 8 },
    },
    {
      id: 'P3',
      measure: `… the same from apiserver_request_total, less the bench's polling (${at})`,
      unit: 'requests',
      ours: `serverRequests${n}`,
    },
    {
      id: 'P3',
      measure: `… of them by the controller (${at})`,
      unit: 'requests',
      ours: `controllerRequests${n}`,
    },
    {
      id: 'P3',
      measure: `… of them by the node (${at})`,
      unit: 'requests',
      ours: `nodeRequests${n}`,
    },
    {
      id: 'P3',
      measure: `most nodes unavailable at once (${at})`,
      unit: 'nodes',
      ours: `maxUnavailable${n}`,
      goal: { on: 'ours', op: '<=', value: m },
    },
    {
      id: 'P3',
      measure: `first node targeted after (${at})`,
      unit: 's',
      ours: `firstTargeted${n}`,
    },
    { id: 'P3', measure: `targeted → drained, mean (${at})`, unit: 'ms', ours: `drain${n}` },
    { id: 'P3', measure: `Done → next targeted, mean (${at})`, unit: 'ms', ours: `refill${n}` },
  ];
}

const opts = options();
const bench = Bench.open('rollout', opts.common);
bench.describe(
  `apply time d = ${opts.applyMs} ms, maxUnavailable ${String(opts.maxUnavailable)}, storage ${opts.storage}, controller delays 0 s; API server and controller on the system core, the node agents on the load core`,
);
const unavailable = new Map<number, number>();
/** The controller's `<METHOD> <resource>` kinds seen, per N (one row each after the table's). */
const kindsSeen = new Map<number, Set<string>>();
await bench.run(async ({ subject }) => {
  let all: Figures = {};
  for (const n of opts.nodes) {
    const r = await run(n, opts, subject);
    unavailable.set(n, r.maxUnavailable);
    const seen = kindsSeen.get(n) ?? new Set<string>();
    for (const k of Object.keys(r.controllerKinds)) seen.add(k);
    kindsSeen.set(n, seen);
    all = { ...all, ...figures(r) };
  }
  return all;
});
bench.report(
  opts.nodes.flatMap((n) => [
    ...rows(n, unavailable.get(n) ?? Number.NaN),
    ...[...(kindsSeen.get(n) ?? [])].sort().map((k): RowDef => ({
      id: 'P3',
      measure: `controller ${k} per node update (${n.toLocaleString('en-US')} nodes)`,
      unit: 'requests',
      ours: `kind${n} ${k}`,
    })),
  ]),
);

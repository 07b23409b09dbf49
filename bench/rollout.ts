/**
 * bench/rollout: how close a rollout comes to the ideal time, with a real `mco apiserver` and a real
 * `mco controller` (processes) and N nodes played by in-process daemons (test/support/
 * node-agents.ts) that take a fixed time d to apply a config.
 *
 * With maxUnavailable m, nodes update in ceil(N / m) waves of d each at best, so the ideal is
 * ceil(N / m) · d. The bench applies a MachineConfig and measures the wall time until the pool is
 * Updated with every node on the new config; it prints that, its ratio to the ideal, the
 * controller's CPU seconds (from /proc/<pid>/stat) and the largest number of nodes it saw
 * unavailable at once (never more than m).
 *
 * The controller runs with its event delays at 0 (`--render-delay`, `--node-update-delay`,
 * `--drain-update-delay`): upstream's 5 s delays would add about 3 × 5 s per wave and measure the
 * delays rather than the controller. The operator is not run: the bench writes the pools, the
 * osimageurl ConfigMap and the ControllerConfig itself, so the operator's MachineConfigNode writes
 * do not load the server.
 *
 * Run: npm run bench:rollout [-- --nodes 100,1000 --apply-ms 200 --max-unavailable 10% --storage memory]
 */
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

const Namespace = 'openshift-machine-config-operator';
const Release = '4.17.0';
const OsImage = 'quay.io/openshift/os@sha256:bench';

interface BenchOptions {
  readonly nodes: number[];
  readonly applyMs: number;
  readonly maxUnavailable: number | string;
  readonly storage: 'memory' | 'sqlite';
}

function options(): BenchOptions {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string', default: '100,1000' },
      'apply-ms': { type: 'string', default: '200' },
      'max-unavailable': { type: 'string', default: '10%' },
      storage: { type: 'string', default: 'memory' },
    },
  });
  const mu = values['max-unavailable'];
  return {
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
}

async function run(n: number, opts: BenchOptions): Promise<RunResult> {
  const server = await BenchApiServer.start(opts.storage);
  const client = createKubeClient({ kubeconfigPath: server.kubeconfig('admin') });
  const controller = new McoProcess('controller', [
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
  ]);
  const agents = new NodeAgents({ client, applyMs: opts.applyMs, createParallel: 64 });
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
    const bench = process.cpuUsage(benchBefore);
    return {
      phases: phases(agents, opts.applyMs, appliedAt),
      benchCpu: (bench.user + bench.system) / 1e6,
      nodes: n,
      maxUnavailable: m.value,
      wallMs,
      idealMs: Math.ceil(n / m.value) * opts.applyMs,
      controllerCpu: (controller.cpuSeconds() ?? 0) - cpuBefore,
      apiserverCpu: (server.process.cpuSeconds() ?? 0) - apiBefore,
      maxSeenUnavailable: maxSeen,
    };
  } finally {
    await agents.stop();
    await controller.stop('SIGTERM');
    await server.dispose();
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

const opts = options();
console.log(
  `bench/rollout: apply time d = ${opts.applyMs} ms, maxUnavailable ${String(opts.maxUnavailable)}, storage ${opts.storage}, controller delays 0 s`,
);
for (const n of opts.nodes) {
  const r = await run(n, opts);
  console.log(
    [
      `${String(r.nodes).padStart(5)} nodes`,
      `maxUnavailable ${r.maxUnavailable}`,
      `wall ${(r.wallMs / 1000).toFixed(2)} s`,
      `ideal ceil(${r.nodes}/${r.maxUnavailable})·${opts.applyMs} ms = ${(r.idealMs / 1000).toFixed(2)} s`,
      `ratio ${(r.wallMs / r.idealMs).toFixed(2)}`,
      `controller CPU ${r.controllerCpu.toFixed(2)} s`,
      `apiserver CPU ${r.apiserverCpu.toFixed(2)} s`,
      `max unavailable seen ${r.maxSeenUnavailable}`,
    ].join(' | '),
  );
  console.log(
    `        first node targeted after ${(r.phases.firstTargetedMs / 1000).toFixed(2)} s, last after ${(r.phases.lastTargetedMs / 1000).toFixed(2)} s; per node: targeted→drained ${r.phases.drainMs.toFixed(0)} ms, applied→Done ${r.phases.uncordonMs.toFixed(0)} ms (beyond d), Done→next targeted ${r.phases.refillMs.toFixed(0)} ms; bench (agents) CPU ${r.benchCpu.toFixed(2)} s`,
  );
}

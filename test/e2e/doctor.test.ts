/**
 * `mco doctor` on the box (`mco start` in `.mco` of a work folder: one master, two workers that
 * are real OSTree sysroots) and an empty Distribution registry on loopback. Each `it` injects one
 * fault a rollout meets in life, checks that the doctor names the node, its phase, the object that
 * blocks it and the fix, then runs the fix exactly as printed (in a shell, with the admin's
 * KUBECONFIG, from the work folder) and waits for the pool to go on:
 *
 * 1. a paused pool; 2. a closed maintenance window; 3. a PodDisruptionBudget at zero and 4. an
 *    unmanaged pod its finalizer keeps, both on the first node to drain; 5. a failing health gate;
 *    6. a drifted file; 7. an OS image the registry does not have; 8. an extension the cluster
 *    cannot install; 9. an approval hold on a config that reboots more of the pool than its policy
 *    allows.
 *
 * A healthy cluster, before and after, is "nothing is stuck" with exit 0. The `it`s build on each
 * other, in order.
 */
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import { DistributionRegistry } from '../../src/adapters/oci/distribution-registry.js';
import type { Node } from '../../src/api/core/v1/node.js';
import type { Pod } from '../../src/api/core/v1/pod.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import {
  RolloutAnnotation,
  RolloutHeldCondition,
} from '../../src/api/machineconfiguration/v1/rollout-policy.js';
import { Resources } from '../../src/api/resource-refs.js';
import type { DoctorReport } from '../../src/runtime/rollout-doctor.js';
import type { Blocker } from '../../src/logic/doctor/blocker.js';
import type { NodeDiagnosis } from '../../src/logic/doctor/rollout-diagnosis.js';
import type { RolloutPolicy } from '../../src/logic/rollout-policy/rollout-policy-schema.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { clusterPorts } from '../../src/box/cluster-ports.js';
import { boxUserToken } from '../support/box-browser.js';
import { BoxProcess } from '../support/box-process.js';
import { RepoRoot, type RunResult } from '../support/run-mco.js';
import { bootIdOf, putMcoOnPath, userShell } from '../support/box-user-shell.js';
import { runDocTranscript } from '../support/doc-transcript.js';
import { until } from '../support/until.js';

const Minute = 60_000;
const Workers = ['worker-0', 'worker-1'] as const;
const Priority = 'example.com/update-order';
const Healthy = 'example.com/Healthy';
const Namespace = 'shop';

/**
 * docs/rollouts.md's `mco doctor node/worker-0` example, line by line, as printed: each `…` stands
 * for what varies from run to run (names, times).
 */
function expectDocExample(printed: string): void {
  const doc = readFileSync(join(RepoRoot, 'docs/rollouts.md'), 'utf8');
  const block = /\n\$ mco doctor node\/worker-0\n([\s\S]*?)\n```\n/.exec(doc)?.[1] ?? '';
  const lines = block.split('\n').filter((l) => l !== '');
  expect(lines.length).toBeGreaterThan(4);
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = lines.map((l) => l.split('…').map(escape).join('.*')).join('\n');
  expect(printed).toMatch(new RegExp(`^${pattern}\n$`));
}

describe('mco doctor on the box: eight faults, each named with its fix', () => {
  let work = '';
  let kubeconfig = '';
  let box: BoxProcess | undefined;
  let registry: DistributionRegistry | undefined;
  let admin: ResourceClient;

  const { sh, mco } = userShell({
    work: () => work,
    kubeconfig: () => kubeconfig,
    timeoutMs: 2 * Minute,
  });
  const dashboardUrl = () => {
    const record = JSON.parse(readFileSync(join(work, '.mco/cluster.json'), 'utf8')) as {
      portBase: number;
    };
    return `http://127.0.0.1:${clusterPorts(record.portBase).dashboard}/`;
  };
  const getPool = () => admin.get<MachineConfigPool>(Resources.machineConfigPool, 'worker');

  async function doctor(scope = 'mcp/worker'): Promise<{ run: RunResult; report: DoctorReport }> {
    const r = await mco(['doctor', scope, '-o', 'json']);
    return { run: r, report: JSON.parse(r.stdout) as DoctorReport };
  }

  /** The doctor's worker nodes once `ready` holds for them. */
  function diagnosed(
    what: string,
    ready: (nodes: readonly NodeDiagnosis[]) => boolean,
    timeoutMs = 4 * Minute,
  ): Promise<{ run: RunResult; nodes: readonly NodeDiagnosis[] }> {
    return until(
      what,
      async () => {
        const d = await doctor();
        const nodes = d.report.pools.find((p) => p.pool === 'worker')?.nodes ?? [];
        return ready(nodes) ? { run: d.run, nodes } : undefined;
      },
      { timeoutMs, intervalMs: 1000 },
    );
  }

  const blockersOf = (nodes: readonly NodeDiagnosis[], node: string): readonly Blocker[] =>
    nodes.find((n) => n.node === node)?.blockers ?? [];
  const kinds = (nodes: readonly NodeDiagnosis[], node: string) =>
    blockersOf(nodes, node).map((b) => b.kind);

  /** Runs a blocker's fix as printed: its first `command` in backquotes, or the whole text. */
  async function applyFix(b: Blocker | undefined): Promise<void> {
    expect(b, 'a blocker to fix').toBeDefined();
    const command = /`([^`]+)`/.exec(b?.fix ?? '')?.[1] ?? b?.fix ?? '';
    const r = await sh(command);
    expect(r.code, `${command}: ${r.stderr}`).toBe(0);
  }

  async function setPolicy(policy: RolloutPolicy | undefined): Promise<void> {
    await admin.patch(
      Resources.machineConfigPool,
      'worker',
      {
        metadata: {
          annotations: {
            [RolloutAnnotation.policy]: policy === undefined ? null : JSON.stringify(policy),
          },
        },
      },
      'merge',
    );
  }

  async function applyMc(name: string, spec: Record<string, unknown>): Promise<string> {
    const before = (await getPool()).spec.configuration?.name ?? '';
    await admin.create(Resources.machineConfig, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      spec,
    });
    return until(
      `the worker pool to render ${name}`,
      async () => {
        const now = (await getPool()).spec.configuration?.name ?? '';
        return now !== '' && now !== before ? now : undefined;
      },
      2 * Minute,
    );
  }

  /** Every worker Done on the pool's target, the pool Updated, and the doctor says so (exit 0). */
  async function healthy(): Promise<void> {
    const status = await mco(['rollout', 'status', 'mcp/worker', '--timeout', '5m']);
    expect(status.code, `${status.stdout}${status.stderr}`).toBe(0);
    const d = await until(
      'the doctor to find nothing stuck',
      async () => {
        const r = await mco(['doctor']);
        return r.code === 0 ? r : undefined;
      },
      { timeoutMs: Minute, intervalMs: 1000 },
    );
    expect(d.stdout).toMatch(
      /^mcp\/master: 1 of 1 nodes on rendered-master-[0-9a-f]{32}; nothing is stuck\nmcp\/worker: 2 of 2 nodes on rendered-worker-[0-9a-f]{32}; nothing is stuck\n$/,
    );
  }

  async function runningPod(name: string, node: string, metadata: Record<string, unknown>) {
    const pod = await admin.create<Pod>(Resources.pod, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: Namespace, ...metadata },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }] },
    });
    await admin.updateStatus<Pod>(Resources.pod, {
      ...pod,
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mco-doctor-'));
    // The fixes name `mco` as a user types it.
    putMcoOnPath(work);
    const dataDir = join(work, '.mco');
    kubeconfig = join(dataDir, 'admin.kubeconfig');
    registry = await DistributionRegistry.start({ dir: join(work, 'registry') });
    box = await BoxProcess.start(dataDir, { masters: 1, workers: Workers.length }, 10 * Minute);
    admin = createKubeClient({ kubeconfigPath: kubeconfig });
    // worker-0 updates first under every policy below
    for (const [i, w] of Workers.entries())
      await admin.patch(
        Resources.node,
        w,
        { metadata: { labels: { [Priority]: String(i) } } },
        'merge',
      );
  }, 12 * Minute);

  afterAll(async () => {
    await box?.stop();
    await registry?.stop();
    BoxProcess.removeFolder(work);
  }, 3 * Minute);

  it('a healthy cluster: nothing is stuck, exit 0, for the cluster, a pool and a node', async () => {
    await healthy();
    const node = await mco(['doctor', 'node/worker-1']);
    expect(node.code, node.stderr).toBe(0);
    expect(node.stdout).toMatch(/^mcp\/worker: 2 of 2 nodes on \S+; nothing is stuck\n$/);
    const bad = await mco(['doctor', 'pod/x']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      'error: mco doctor looks at pools and nodes: expected mcp/NAME or node/NAME, got pod/x\n',
    );
  });

  it(
    '1. a paused pool: every worker waits on it; the fix unpauses',
    async () => {
      await admin.patch(Resources.machineConfigPool, 'worker', { spec: { paused: true } }, 'merge');
      await applyMc('50-doctor-file', {
        config: {
          ignition: { version: '3.5.0' },
          storage: {
            files: [
              { path: '/etc/doctor.conf', mode: 420, contents: { source: 'data:,first%0A' } },
            ],
          },
        },
      });
      const d = await diagnosed('both workers waiting on the paused pool', (nodes) =>
        Workers.every((w) => kinds(nodes, w).join() === 'PausedPool'),
      );
      expect(d.run.code).toBe(1);
      expect(d.run.stderr).toBe('error: stuck: mcp/worker\n');
      const [paused] = blockersOf(d.nodes, 'worker-0');
      expect(paused).toEqual({
        kind: 'PausedPool',
        object: 'mcp/worker',
        why: 'the pool is paused: the node controller points no node at a new config',
        fix: `kubectl patch mcp/worker --type merge -p '{"spec":{"paused":false}}'`,
      });
      expect(d.nodes.map((n) => n.phase)).toEqual(['Waiting', 'Waiting']);
      const text = await mco(['doctor', 'mcp/worker']);
      expect(text.stdout).toMatch(
        /\n {2}worker-0 {2}Waiting since \S+Z \([0-9hms]+\)\n {4}blocked by mcp\/worker \(PausedPool\): the pool is paused: the node controller points no node at a new config\n {6}fix: kubectl patch mcp\/worker --type merge -p '\{"spec":\{"paused":false\}\}'\n/,
      );
      // A window that opens in twelve hours holds the rollout once the pool is unpaused.
      const opens = new Date(Date.now() + 12 * 3_600_000);
      const start = opens.toISOString().slice(11, 16);
      await setPolicy({
        windows: [{ start, duration: '30m', timeZone: 'UTC' }],
        order: { priorityLabel: Priority },
      });
      await applyFix(paused);
      expect((await getPool()).spec.paused).toBe(false);
    },
    6 * Minute,
  );

  it(
    '2. a closed maintenance window: when it opens, and how to start sooner',
    async () => {
      const d = await diagnosed('both workers waiting on the window', (nodes) =>
        Workers.every((w) => kinds(nodes, w).join() === 'MaintenanceWindow'),
      );
      const [window] = blockersOf(d.nodes, 'worker-1');
      expect(window?.object).toBe('mcp/worker (rollout policy: OutsideMaintenanceWindow)');
      expect(window?.why).toMatch(
        /^No node update starts outside a maintenance window; the next maintenance window opens at \d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/,
      );
      expect(window?.fix).toContain(RolloutAnnotation.policy);
      expect(d.nodes.every((n) => n.since !== undefined && Date.parse(n.since) > 0)).toBe(true);
      const held = (await getPool()).status?.conditions?.find(
        (c) => c.type === RolloutHeldCondition,
      );
      expect(window?.why).toBe(held?.message);
      // THEN pods on worker-0, one under a budget that allows nothing, one kept by a finalizer
      await admin.create(Resources.namespace, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: Namespace },
      });
      await runningPod('db-0', 'worker-0', {
        labels: { app: 'db' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'StatefulSet',
            name: 'db',
            uid: 'uid-db',
            controller: true,
          },
        ],
      });
      await runningPod('keeper', 'worker-0', { finalizers: ['example.com/keep'] });
      await admin.create(Resources.podDisruptionBudget, {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'db', namespace: Namespace },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
      });
      // and a gate no updated node passes: worker-0 reports no such condition
      await setPolicy({
        gates: { soak: '2s', nodeCondition: { type: Healthy, status: 'True' } },
        order: { priorityLabel: Priority },
      });
    },
    6 * Minute,
  );

  it(
    '3. a PodDisruptionBudget at zero blocks the drain: named with its pods and counts',
    async () => {
      const d = await diagnosed(
        'worker-0 draining, held by the budget and the kept pod',
        (nodes) => kinds(nodes, 'worker-0').join() === 'PodDisruptionBudget,Pod',
      );
      const node = d.nodes.find((n) => n.node === 'worker-0');
      expect(node?.phase).toBe('Draining');
      expect(node?.stuck).toBe(true);
      const budget = blockersOf(d.nodes, 'worker-0').find((b) => b.kind === 'PodDisruptionBudget');
      expect(budget).toEqual({
        kind: 'PodDisruptionBudget',
        object: 'poddisruptionbudget/db -n shop',
        why: 'PodDisruptionBudget shop/db allows no disruption (1 healthy, 1 needed); it protects pod/db-0 on this node, so the eviction is refused and retried',
        fix: 'let another of its pods become healthy elsewhere (`kubectl scale` its workload), or relax the budget: `kubectl delete pdb db -n shop`',
      });
      // worker-1 waits for its turn: not stuck on its own
      expect(d.nodes.find((n) => n.node === 'worker-1')).toMatchObject({
        phase: 'Waiting',
        stuck: false,
        blockers: [],
      });
      // The dashboard answers the same, read with the caller's token
      const dashboard = await fetch(`${dashboardUrl()}api/pools/worker/doctor`, {
        headers: { Authorization: `Bearer ${boxUserToken(join(work, '.mco'), 'system:admin')}` },
      });
      expect(dashboard.status).toBe(200);
      const shown = (await dashboard.json()) as DoctorReport;
      const onDashboard = shown.pools[0]?.nodes.find((n) => n.node === 'worker-0');
      expect(onDashboard?.phase).toBe('Draining');
      expect(onDashboard?.since).toBe(node?.since);
      expect(onDashboard?.blockers.find((b) => b.kind === 'PodDisruptionBudget')).toEqual(budget);
      const text = await mco(['doctor', 'node/worker-0']);
      expectDocExample(`${text.stdout}${text.stderr}`);
      expect(text.stdout).toContain(
        'blocked by poddisruptionbudget/db -n shop (PodDisruptionBudget)',
      );
      expect(text.stdout).not.toContain('worker-1');
      const r = await sh('kubectl delete pdb db -n shop');
      expect(r.code, r.stderr).toBe(0);
    },
    6 * Minute,
  );

  it(
    '4. an unmanaged pod its finalizer keeps: the drain waits for it; the fix removes the finalizer',
    async () => {
      const d = await diagnosed(
        'worker-0 draining, waiting for keeper',
        (nodes) => kinds(nodes, 'worker-0').join() === 'Pod',
      );
      const [pod] = blockersOf(d.nodes, 'worker-0');
      expect(pod?.object).toBe('pod/keeper -n shop');
      expect(pod?.why).toMatch(
        /^no controller owns it; it was evicted at \S+ but its finalizers \[example\.com\/keep\] keep it, and the drain waits for it to be gone$/,
      );
      expect(pod?.fix).toContain(
        `\`kubectl patch pod keeper -n shop --type merge -p '{"metadata":{"finalizers":null}}'\``,
      );
      await applyFix(pod);
    },
    6 * Minute,
  );

  it(
    '5. a failing health gate: worker-1 waits on it, with the condition it wants',
    async () => {
      const d = await diagnosed(
        'worker-1 waiting on the gate',
        (nodes) => kinds(nodes, 'worker-1').join() === 'HealthGate',
        6 * Minute,
      );
      const [gate] = blockersOf(d.nodes, 'worker-1');
      expect(gate?.why).toBe(
        `Health gate failed: node worker-0 condition ${Healthy} is missing, expected True`,
      );
      expect(gate?.fix).toContain(`kubectl annotate mcp/worker ${RolloutAnnotation.policy}-`);
      expect(d.nodes.some((n) => n.node === 'worker-0')).toBe(false);
      await applyFix(gate);
      await healthy();
    },
    12 * Minute,
  );

  it(
    '6. a drifted file: the node is Degraded on it; the forcefile repairs it',
    async () => {
      appendFileSync(join(work, '.mco/nodes/worker-1/rootfs/etc/doctor.conf'), 'drift\n');
      const d = await diagnosed(
        'worker-1 degraded on the drifted file',
        (nodes) => kinds(nodes, 'worker-1').join() === 'DriftedFile',
      );
      const node = d.nodes.find((n) => n.node === 'worker-1');
      expect(node?.phase).toBe('Degraded');
      expect(Date.parse(node?.since ?? '')).toBeGreaterThan(0);
      const [drift] = node?.blockers ?? [];
      expect(drift?.object).toBe('file /etc/doctor.conf on node/worker-1');
      expect(drift?.why).toContain('content mismatch for file "/etc/doctor.conf"');
      expect(drift?.fix).toContain(
        '`touch .mco/nodes/worker-1/rootfs/run/machine-config-daemon-force`',
      );
      const r = await sh('touch .mco/nodes/worker-1/rootfs/run/machine-config-daemon-force');
      expect(r.code, r.stderr).toBe(0);
      await healthy();
    },
    10 * Minute,
  );

  it(
    '7. an OS image the registry does not have: Degraded with the registry’s answer; deleting the MachineConfig heals',
    async () => {
      const image = `${registry?.address ?? ''}/testos@sha256:${'0'.repeat(64)}`;
      await applyMc('60-doctor-image', { osImageURL: image });
      const d = await diagnosed('a worker degraded on the image', (nodes) =>
        nodes.some((n) => n.blockers.some((b) => b.kind === 'Image')),
      );
      const stuck = d.nodes.find((n) => n.blockers.some((b) => b.kind === 'Image'));
      expect(stuck?.phase).toBe('Degraded');
      const [pull] = stuck?.blockers ?? [];
      expect(pull?.object).toBe(image);
      expect(pull?.why).toMatch(/manifest unknown/i);
      expect(pull?.fix).toContain('mc/60-doctor-image');
      const r = await sh('kubectl delete mc 60-doctor-image');
      expect(r.code, r.stderr).toBe(0);
      await healthy();
    },
    10 * Minute,
  );

  it(
    '8. an extension the cluster cannot install: Degraded on it, the MachineConfig named; deleting it heals',
    async () => {
      await applyMc('70-doctor-usbguard', { extensions: ['usbguard'] });
      const d = await diagnosed('a worker degraded on the extension', (nodes) =>
        nodes.some((n) => n.blockers.some((b) => b.kind === 'Extension')),
      );
      const stuck = d.nodes.find((n) => n.blockers.some((b) => b.kind === 'Extension'));
      const [ext] = stuck?.blockers ?? [];
      expect(ext?.object).toBe('mc/70-doctor-usbguard');
      expect(ext?.why).toContain('cannot install extensions [usbguard]');
      expect(ext?.fix).toContain('mco upgrade');
      const r = await sh('kubectl delete mc 70-doctor-usbguard');
      expect(r.code, r.stderr).toBe(0);
      await healthy();
      const nodes = await admin.list<Node>(Resources.node);
      for (const n of nodes.items)
        expect(n.metadata.annotations?.[Annotation.state], n.metadata.name).toBe('Done');
    },
    10 * Minute,
  );
  it(
    '9. an approval hold: no node starts until approved, the hold carries the preview, a read-only token cannot approve, and then each node reboots as previewed',
    async () => {
      const bootId = (n: string) => bootIdOf(join(work, '.mco'), n);
      await setPolicy({ approval: { rebootsAbove: '50%' }, order: { priorityLabel: Priority } });
      const before = new Map(Workers.map((w) => [w, bootId(w)]));
      const mc = {
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineConfig',
        metadata: {
          name: '80-doctor-approval',
          labels: { 'machineconfiguration.openshift.io/role': 'worker' },
        },
        spec: {
          config: {
            ignition: { version: '3.5.0' },
            storage: {
              files: [
                { path: '/etc/approval.conf', mode: 420, contents: { source: 'data:,a%0A' } },
              ],
            },
          },
        },
      };
      const file = join(work, 'approval.json');
      writeFileSync(file, JSON.stringify(mc));
      const previewed = await mco(['rollout', 'preview', 'mcp/worker', '-f', file, '-o', 'json']);
      expect(previewed.code, previewed.stderr).toBe(0);
      const preview = JSON.parse(previewed.stdout) as {
        renderedName: string;
        nodes: { node: string; plan: { drain: boolean; reboot: boolean } }[];
      };
      expect(preview.nodes.map((n) => [n.node, n.plan.drain, n.plan.reboot])).toEqual([
        ['worker-0', true, true],
        ['worker-1', true, true],
      ]);
      const applied = await sh(`kubectl apply -f ${file}`);
      expect(applied.code, applied.stderr).toBe(0);
      const target = await until('the worker pool to render the change', async () => {
        const now = (await getPool()).spec.configuration?.name ?? '';
        return now === preview.renderedName ? now : undefined;
      });
      const d = await diagnosed('both workers held for an approval', (nodes) =>
        Workers.every((w) => kinds(nodes, w).join() === 'RolloutHold'),
      );
      const [held] = blockersOf(d.nodes, 'worker-0');
      expect(held).toEqual({
        kind: 'RolloutHold',
        object: 'mcp/worker (rollout policy: AwaitingApproval)',
        why: `${target} waits for an approval: it reboots 2 of 2 nodes (more than 1, rebootsAbove "50%"). Preview: worker-0, worker-1 will drain and reboot. \`mco rollout approve mcp/worker\` lets it start`,
        fix: 'run `mco rollout approve mcp/worker` once the preview is what you want',
      });
      const status = await mco(['rollout', 'status', 'mcp/worker', '--watch=false']);
      expect(status.stdout).toContain(`held (AwaitingApproval): ${target} waits for an approval`);
      // A token that may read pools but not write them: 403 from the dashboard, nothing written.
      const reader = boxUserToken(
        join(work, '.mco'),
        'system:serviceaccount:openshift-machine-config-operator:machine-config-dashboard',
      );
      const refused = await fetch(`${dashboardUrl()}api/pools/worker/rollout/approve`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${reader}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(refused.status).toBe(403);
      // Nothing started while held, and nothing rebooted.
      const waiting = await getPool();
      expect(waiting.metadata.annotations?.[RolloutAnnotation.approved]).toBeUndefined();
      const nodes = await admin.list<Node>(Resources.node, {
        labelSelector: 'node-role.kubernetes.io/worker',
      });
      for (const n of nodes.items)
        expect(n.metadata.annotations?.[Annotation.desiredConfig], n.metadata.name).not.toBe(
          target,
        );
      expect(new Map(Workers.map((w) => [w, bootId(w)]))).toEqual(before);
      // The fix is the transcript's last command: docs/rollouts.md's, run as printed.
      expect(held?.fix).toContain('`mco rollout approve mcp/worker`');
      await runDocTranscript('docs/rollouts.md', 'mco rollout approve mcp/worker', sh);
      expect((await getPool()).metadata.annotations?.[RolloutAnnotation.approved]).toBe(target);
      await healthy();
      for (const w of Workers)
        expect(bootId(w), `${w} rebooted as previewed`).not.toBe(before.get(w));
      // A change that reboots no node is not held: an SSH key.
      const keys = await applyMc('81-doctor-approval-key', {
        config: {
          ignition: { version: '3.5.0' },
          passwd: {
            users: [
              {
                name: 'core',
                sshAuthorizedKeys: [
                  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIApproval test@example.com',
                ],
              },
            ],
          },
        },
      });
      const rebooted = new Map(Workers.map((w) => [w, bootId(w)]));
      await healthy();
      expect((await getPool()).status?.configuration?.name).toBe(keys);
      expect((await getPool()).metadata.annotations?.[RolloutAnnotation.approved]).toBe(target);
      expect(new Map(Workers.map((w) => [w, bootId(w)]))).toEqual(rebooted);
      await setPolicy(undefined);
    },
    12 * Minute,
  );
});

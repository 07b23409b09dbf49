/**
 * The whole control plane as real processes — `mco apiserver`, `mco operator`, `mco controller` —
 * with one master and ten worker nodes played by in-process daemons (test/support/node-agents.ts)
 * that follow the annotation protocol through the real client. A MachineConfig applied with the
 * real kubectl rolls out; a sampler lists the nodes every 100 ms and must never see more of them
 * unavailable than the pool's maxUnavailable.
 *
 * Covered: the rollout with maxUnavailable 1, 3 and "30%" (pool Updating →
 * Updated with upstream's messages, `kubectl get mcp` counts); pause (renders, retargets nobody,
 * upstream's Updating message, resumes when unpaused); leader election between two controllers
 * (only the leader acts, SIGKILL mid-rollout, takeover within the lease, maxUnavailable holds);
 * the operator (built-in pools, ControllerConfig from the osimageurl ConfigMap, MachineConfigNodes
 * following nodes, pointer Secrets, ClusterOperator Available with the version, and an upgrade
 * that reports the new version only once master is Updated).
 *
 * Needs the built binary (`npm run build`) with `mco controller`; the suite waits up to 20 minutes
 * for `mco controller --help` to work (a build may still be running), then fails with that reason.
 */
import { Buffer } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { ClusterOperator } from '../../src/api/config/v1/cluster-operator.js';
import type { Lease } from '../../src/api/coordination/v1/lease.js';
import type { ConfigMap } from '../../src/api/core/v1/config-map.js';
import type { Event } from '../../src/api/core/v1/event.js';
import type { Node } from '../../src/api/core/v1/node.js';
import type { Secret } from '../../src/api/core/v1/secret.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { ControllerConfig } from '../../src/api/machineconfiguration/v1/controller-config.js';
import type { MachineConfigNode } from '../../src/api/machineconfiguration/v1/machine-config-node.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../../src/api/meta/v1/status-error.js';
import { Resources } from '../../src/api/resource-refs.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { McoVersion } from '../../src/version.js';
import { hasMcoCommand, McoProcess } from '../support/mco-processes.js';
import { NodeAgents } from '../support/node-agents.js';
import { Sampler } from '../support/unavailable-sampler.js';
import { kubectl, startApiServer, type ApiServerProcess } from './apiserver-harness.js';
import { sleep, until } from '../support/until.js';

const Namespace = 'openshift-machine-config-operator';
const Release = '4.17.0';
const NextRelease = '4.18.0';
const OsImage = 'quay.io/openshift/os@sha256:1111';
const NextOsImage = 'quay.io/openshift/os@sha256:2222';
const McsUrl = 'https://api-int.example.com:22623';
const Workers = 10;
const ApplyMs = 400;
/** Controller leader election for the test: short, so a takeover takes seconds. */
const Lease = { duration: 4000, renew: 3000, retry: 500 };
const Minute = 60_000;

function condition(pool: MachineConfigPool | undefined, type: string) {
  return pool?.status?.conditions?.find((c) => c.type === type);
}

describe('rollout through real processes', () => {
  let api: ApiServerProcess;
  let admin: ResourceClient;
  let operator: McoProcess;
  const controllers: McoProcess[] = [];
  let agents: NodeAgents;
  let mcCounter = 0;
  const cacheDir = `/tmp/mco-rollout-kubectl-${process.pid}`;

  const k = (args: string[], input?: string) =>
    kubectl(args, {
      kubeconfig: api.kubeconfig('admin'),
      cacheDir,
      ...(input === undefined ? {} : { input }),
    });

  const getPool = (name: string) => admin.get<MachineConfigPool>(Resources.machineConfigPool, name);

  function startOperator(release: string): McoProcess {
    return new McoProcess('operator', [
      'operator',
      '--kubeconfig',
      api.kubeconfig('operator'),
      '--release-version',
      release,
      '--operator-image',
      'quay.io/openshift/mco:test',
      '--mcs-url',
      McsUrl,
      '--mcs-ca-file',
      `${api.dataDir}/ca.crt`,
      '--poll-interval',
      '200ms',
      '--controller-config-timeout',
      '60s',
      '--required-pools-timeout-per-machine',
      '120s',
      '--leader-elect',
      '--leader-elect-identity',
      `operator-${release}`,
      '--leader-elect-lease-duration',
      '4s',
      '--leader-elect-renew-deadline',
      '3s',
      '--leader-elect-retry-period',
      '500ms',
    ]);
  }

  function startController(name: string, leaderElect: boolean): McoProcess {
    const p = new McoProcess(name, [
      'controller',
      '--kubeconfig',
      api.kubeconfig('controller'),
      '--render-delay',
      '200ms',
      '--node-update-delay',
      '0s',
      '--drain-update-delay',
      '0s',
      ...(leaderElect
        ? [
            '--leader-elect',
            '--leader-elect-identity',
            name,
            '--leader-elect-lease-duration',
            `${Lease.duration}ms`,
            '--leader-elect-renew-deadline',
            `${Lease.renew}ms`,
            '--leader-elect-retry-period',
            `${Lease.retry}ms`,
          ]
        : []),
      '--log-level',
      'debug',
    ]);
    controllers.push(p);
    return p;
  }

  async function applyOsImageUrls(release: string, image: string): Promise<void> {
    const cm: ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: Namespace },
      data: {
        baseOSContainerImage: image,
        baseOSExtensionsContainerImage: `${image}-extensions`,
        osImageURL: '',
        releaseVersion: release,
      },
    };
    const r = await k(['apply', '-f', '-'], JSON.stringify(cm));
    expect(r.stderr).toBe('');
  }

  /** A worker MachineConfig with one new file, applied with kubectl; its name. */
  async function applyWorkerConfig(): Promise<string> {
    const name = `50-worker-rollout-${++mcCounter}`;
    const yaml = [
      'apiVersion: machineconfiguration.openshift.io/v1',
      'kind: MachineConfig',
      'metadata:',
      `  name: ${name}`,
      '  labels:',
      '    machineconfiguration.openshift.io/role: worker',
      'spec:',
      '  config:',
      '    ignition:',
      '      version: 3.2.0',
      '    storage:',
      '      files:',
      `      - path: /etc/rollout-${mcCounter}`,
      '        mode: 420',
      '        contents:',
      `          source: data:,rollout-${mcCounter}`,
      '',
    ].join('\n');
    const r = await k(['apply', '-f', '-'], yaml);
    expect(r.stdout.trim()).toBe(`machineconfig.machineconfiguration.openshift.io/${name} created`);
    return name;
  }

  /** Waits until the pool targets a config other than `old`; the new name. */
  function newTarget(pool: string, old: string): Promise<string> {
    return until(`pool ${pool} to render past ${old}`, async () => {
      const name = (await getPool(pool)).spec.configuration?.name;
      return name !== undefined && name !== '' && name !== old ? name : undefined;
    });
  }

  function workerNames(): string[] {
    return Array.from({ length: Workers }, (_, i) => `worker-${i}`);
  }

  async function setMaxUnavailable(value: number | string): Promise<void> {
    await admin.patch(
      Resources.machineConfigPool,
      'worker',
      { spec: { maxUnavailable: value } },
      'merge',
    );
  }

  async function waitUpdated(pool: string, target: string, machines: number): Promise<void> {
    await until(
      `pool ${pool} Updated at ${target}`,
      async () => {
        const p = await getPool(pool);
        const updated = condition(p, 'Updated');
        return updated?.status === 'True' &&
          p.status?.configuration?.name === target &&
          p.status.updatedMachineCount === machines
          ? true
          : undefined;
      },
      5 * Minute,
    );
  }

  beforeAll(async () => {
    const deadline = Date.now() + 20 * Minute;
    while (!hasMcoCommand('controller')) {
      if (Date.now() > deadline)
        throw new Error('`mco controller --help` does not work: build the controller first');
      await sleep(5000);
    }
    api = await startApiServer({ storage: 'memory' });
    admin = createKubeClient({ kubeconfigPath: api.kubeconfig('admin') });
    await applyOsImageUrls(Release, OsImage);
    operator = startOperator(Release);
    startController('controller-0', false);
    const [master, worker] = await Promise.all(
      ['master', 'worker'].map((p) => newTarget(p, '')),
    ).catch((e: unknown) => {
      const tail = (p: McoProcess) => p.output().split('\n').slice(-15).join('\n');
      throw new Error(
        `${e instanceof Error ? e.message : 'failed'}\n--- operator:\n${tail(operator)}\n--- controller:\n${controllers.map(tail).join('\n')}`,
      );
    });
    agents = new NodeAgents({ client: admin, applyMs: ApplyMs });
    await agents.add([
      { name: 'master-0', role: 'master', config: master ?? '', zone: 'zone-a' },
      ...workerNames().map((name, i) => ({
        name,
        role: 'worker',
        config: worker ?? '',
        zone: `zone-${'abc'[i % 3] ?? 'a'}`,
      })),
    ]);
    await waitUpdated('worker', worker ?? '', Workers);
    await waitUpdated('master', master ?? '', 1);
  }, 30 * Minute);

  afterAll(async () => {
    await agents?.stop();
    for (const c of controllers) await c.stop('SIGKILL');
    await operator?.stop('SIGKILL');
    await api?.dispose();
  });

  describe('mco operator', () => {
    it('creates the built-in pools with upstream labels and selectors', async () => {
      const master = await getPool('master');
      const worker = await getPool('worker');
      expect(master.metadata.labels).toEqual({
        'machineconfiguration.openshift.io/mco-built-in': '',
        'pools.operator.machineconfiguration.openshift.io/master': '',
        'operator.machineconfiguration.openshift.io/required-for-upgrade': '',
      });
      expect(worker.metadata.labels).toEqual({
        'machineconfiguration.openshift.io/mco-built-in': '',
        'pools.operator.machineconfiguration.openshift.io/worker': '',
      });
      expect(worker.spec.machineConfigSelector).toEqual({
        matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' },
      });
      expect(worker.spec.nodeSelector).toEqual({
        matchLabels: { 'node-role.kubernetes.io/worker': '' },
      });
    });

    it('builds the ControllerConfig from the osimageurl ConfigMap, and the controller completes it', async () => {
      const cc = await admin.get<ControllerConfig>(
        Resources.controllerConfig,
        'machine-config-controller',
      );
      expect(cc.metadata.annotations).toMatchObject({
        [Annotation.generatedByVersion]: McoVersion.raw,
        [Annotation.releaseImageVersion]: Release,
        [Annotation.serviceCaRotate]: 'false',
      });
      expect(cc.spec.baseOSContainerImage).toBe(OsImage);
      expect(cc.spec.baseOSExtensionsContainerImage).toBe(`${OsImage}-extensions`);
      expect(Buffer.from(cc.spec.rootCAData, 'base64').toString()).toBe(api.caPem);
      const completed = cc.status?.conditions?.find(
        (c) => c.type === 'TemplateControllerCompleted',
      );
      expect(completed?.status).toBe('True');
      expect(cc.status?.observedGeneration).toBe(cc.metadata.generation);
    });

    it('writes the pointer Ignition Secret per pool', async () => {
      for (const pool of ['master', 'worker']) {
        const s = await admin.get<Secret>(
          Resources.secret,
          `${pool}-user-data-managed`,
          'openshift-machine-api',
        );
        const pointer = JSON.parse(
          Buffer.from(s.data?.['userData'] ?? '', 'base64').toString(),
        ) as {
          ignition: { config: { merge: { source: string }[] }; security: unknown };
        };
        expect(pointer.ignition.config.merge).toEqual([{ source: `${McsUrl}/config/${pool}` }]);
        expect(JSON.stringify(pointer.ignition.security)).toContain(
          Buffer.from(api.caPem).toString('base64'),
        );
        expect(s.metadata.ownerReferences?.[0]).toMatchObject({
          kind: 'MachineConfigPool',
          name: pool,
        });
      }
    });

    it('keeps one MachineConfigNode per node, and follows nodes coming and going', async () => {
      const mcns = await until('a MachineConfigNode per node', async () => {
        const list = await admin.list<MachineConfigNode>(Resources.machineConfigNode);
        return list.items.length === Workers + 1 ? list.items : undefined;
      });
      const byName = new Map(mcns.map((m) => [m.metadata.name ?? '', m]));
      expect(byName.get('master-0')?.spec.pool.name).toBe('master');
      expect(byName.get('worker-3')?.spec.pool.name).toBe('worker');
      expect(byName.get('worker-3')?.metadata.ownerReferences?.[0]).toMatchObject({
        kind: 'Node',
        name: 'worker-3',
      });
      // GIVEN a new node that no pool selects
      await admin.create(Resources.node, {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'spare-0', labels: { 'kubernetes.io/hostname': 'spare-0' } },
      });
      const spare = await until('the spare node to get a MachineConfigNode', async () => {
        const m = await admin.get<MachineConfigNode>(Resources.machineConfigNode, 'spare-0');
        return (m.status?.conditions ?? []).length > 0 ? m : undefined;
      });
      expect(spare.spec).toEqual({
        node: { name: 'spare-0' },
        pool: { name: 'not-yet-set' },
        configVersion: { desired: 'not-yet-set' },
      });
      expect(spare.status?.conditions?.find((c) => c.type === 'Updated')).toMatchObject({
        status: 'False',
        reason: 'NotYetOccurred',
        message: 'This node has not yet entered the Updated phase',
      });
      // WHEN it is deleted THEN its MachineConfigNode goes too
      await admin.delete(Resources.node, 'spare-0');
      await until('the spare MachineConfigNode to go', async () => {
        try {
          await admin.get(Resources.machineConfigNode, 'spare-0');
          return undefined;
        } catch (e) {
          return isStatusError(e, 'NotFound') ? true : undefined;
        }
      });
    });

    it('holds its Lease and, once settled, writes nothing more', async () => {
      const lease = await admin.get<Lease>(Resources.lease, 'machine-config', Namespace);
      expect(lease.spec?.holderIdentity).toBe(`operator-${Release}`);
      const versions = async () =>
        Promise.all([
          admin.get<ClusterOperator>(Resources.clusterOperator, 'machine-config'),
          admin.get<ControllerConfig>(Resources.controllerConfig, 'machine-config-controller'),
          admin.get<MachineConfigPool>(Resources.machineConfigPool, 'master'),
          admin.get<Secret>(Resources.secret, 'worker-user-data-managed', 'openshift-machine-api'),
        ]).then((objects) => objects.map((o) => o.metadata.resourceVersion));
      const before = await versions();
      await sleep(3000);
      expect(await versions()).toEqual(before);
    });

    it('reports ClusterOperator machine-config Available at its version', async () => {
      const co = await until('ClusterOperator Available', async () => {
        const c = await admin.get<ClusterOperator>(Resources.clusterOperator, 'machine-config');
        const available = c.status?.conditions?.find((x) => x.type === 'Available');
        const degraded = c.status?.conditions?.find((x) => x.type === 'Degraded');
        return available?.status === 'True' && degraded?.status === 'False' ? c : undefined;
      });
      const conditions = Object.fromEntries(
        (co.status?.conditions ?? []).map((c) => [
          c.type,
          [c.status, c.reason, c.message].filter((x) => x !== undefined && x !== '').join(' '),
        ]),
      );
      expect(conditions).toEqual({
        Available: `True AsExpected Cluster has deployed [{operator ${Release}} {operator-image quay.io/openshift/mco:test}]`,
        Progressing: `False Cluster version is ${Release}`,
        Degraded: 'False',
        Upgradeable: 'True AsExpected',
        EvaluationConditionsDetected: 'False AsExpected',
      });
      expect(co.status?.versions).toEqual([
        { name: 'operator', version: Release },
        { name: 'operator-image', version: 'quay.io/openshift/mco:test' },
      ]);
      const master = await getPool('master');
      const worker = await getPool('worker');
      expect(co.status?.extension).toEqual({
        master: `all 1 nodes are at latest configuration ${master.status?.configuration?.name ?? ''}`,
        worker: `all 10 nodes are at latest configuration ${worker.status?.configuration?.name ?? ''}`,
      });
    });
  });

  describe.each([1, 3, '30%'])('rollout with maxUnavailable %s', (maxUnavailable) => {
    const limit = typeof maxUnavailable === 'number' ? maxUnavailable : 3;

    it(
      'never has more nodes unavailable, goes Updating → Updated, and kubectl shows the counts',
      async () => {
        await setMaxUnavailable(maxUnavailable);
        const before = (await getPool('worker')).spec.configuration?.name ?? '';
        const sampler = new Sampler(admin, 'worker', 'worker');
        try {
          await applyWorkerConfig();
          const target = await newTarget('worker', before);
          await agents.waitForAll(target, 5 * Minute, workerNames()).catch((e: unknown) => {
            throw new Error(`${String(e)}; busy: ${agents.busy().join(',')}`);
          });
          await waitUpdated('worker', target, Workers);
          // The sampler polls on its own: wait for it to see what waitUpdated saw, not a guess.
          const updated = `Updated=True: All nodes are updated with MachineConfig ${target}`;
          await until(
            'the sampler to see the pool Updated',
            () => Promise.resolve(sampler.seen.has(updated) ? true : undefined),
            30_000,
          );
          sampler.stop();
          expect(sampler.samples).toBeGreaterThan(10);
          expect(sampler.maxUnavailable, sampler.worst.join('\n')).toBeLessThanOrEqual(limit);
          expect(sampler.maxUnavailable).toBeGreaterThanOrEqual(1);
          expect([...sampler.seen]).toContain(
            `Updating=True: All nodes are updating to MachineConfig ${target}`,
          );
          expect([...sampler.seen]).toContain(
            `Updated=True: All nodes are updated with MachineConfig ${target}`,
          );
          const rows = (await k(['get', 'mcp', 'worker', '--no-headers'])).stdout
            .trim()
            .split(/\s+/);
          expect(rows.slice(0, 9)).toEqual([
            'worker',
            target,
            'True',
            'False',
            'False',
            String(Workers),
            String(Workers),
            String(Workers),
            '0',
          ]);
        } finally {
          sampler.stop();
        }
      },
      10 * Minute,
    );
  });

  it(
    'pause: a paused pool renders but retargets no node; unpausing resumes',
    async () => {
      await setMaxUnavailable(2);
      await admin.patch(Resources.machineConfigPool, 'worker', { spec: { paused: true } }, 'merge');
      const before = (await getPool('worker')).spec.configuration?.name ?? '';
      const sampler = new Sampler(admin, 'worker', 'worker');
      try {
        await applyWorkerConfig();
        const target = await newTarget('worker', before);
        const paused = await until('the paused Updating message', async () => {
          const p = await getPool('worker');
          return condition(p, 'Updating')?.message ===
            `Pool is paused; will not update to MachineConfig ${target}`
            ? p
            : undefined;
        });
        expect(condition(paused, 'Updating')?.status).toBe('False');
        expect(condition(paused, 'Updated')?.status).toBe('False');
        await sleep(3000);
        const nodes = await admin.list<Node>(Resources.node, {
          labelSelector: 'node-role.kubernetes.io/worker',
        });
        expect(nodes.items.map((n) => n.metadata.annotations?.[Annotation.desiredConfig])).toEqual(
          nodes.items.map(() => before),
        );
        expect(sampler.maxUnavailable).toBe(0);
        // WHEN unpaused THEN the rollout proceeds to the end
        await admin.patch(
          Resources.machineConfigPool,
          'worker',
          { spec: { paused: false } },
          'merge',
        );
        await agents.waitForAll(target, 5 * Minute, workerNames());
        await waitUpdated('worker', target, Workers);
        sampler.stop();
        expect(sampler.maxUnavailable).toBeLessThanOrEqual(2);
        expect([...sampler.seen]).toContain(
          `Updating=True: All nodes are updating to MachineConfig ${target}`,
        );
      } finally {
        sampler.stop();
      }
    },
    10 * Minute,
  );

  it(
    'leader election: only the leader acts; after SIGKILL the other takes over within the lease',
    async () => {
      // GIVEN two controllers electing a leader instead of the single one
      await controllers[0]?.stop('SIGTERM');
      const a = startController('controller-a', true);
      await until('controller-a to lead', async () => {
        const lease = await admin.get<Lease>(
          Resources.lease,
          'machine-config-controller',
          Namespace,
        );
        return lease.spec?.holderIdentity === 'controller-a' ? true : undefined;
      });
      const b = startController('controller-b', true);
      // A process takes seconds to start on a busy machine: wait until it campaigns.
      await until('controller-b to campaign', () =>
        Promise.resolve(
          b.logs().some((l) => l.msg === 'attempting to acquire leader lease') ? true : undefined,
        ),
      );
      await sleep(2 * Lease.duration);
      const lease = await admin.get<Lease>(Resources.lease, 'machine-config-controller', Namespace);
      expect(lease.spec?.holderIdentity).toBe('controller-a');
      // THEN the follower has started no controller and reconciled nothing
      const acting = (p: McoProcess) =>
        p.logs().filter((l) => /starting (controllers|workers)|reconcil/i.test(l.msg ?? ''));
      expect(acting(b)).toEqual([]);
      expect(acting(a).length).toBeGreaterThan(0);

      await setMaxUnavailable(2);
      const before = (await getPool('worker')).spec.configuration?.name ?? '';
      const sampler = new Sampler(admin, 'worker', 'worker');
      try {
        await applyWorkerConfig();
        const target = await newTarget('worker', before);
        // WHEN the leader dies mid-rollout
        await until('the rollout to start', () =>
          Promise.resolve(agents.busy().length > 0 ? true : undefined),
        );
        const killedAt = Date.now();
        await a.stop('SIGKILL');
        await until(
          'controller-b to take the lease',
          async () => {
            const l = await admin.get<Lease>(
              Resources.lease,
              'machine-config-controller',
              Namespace,
            );
            return l.spec?.holderIdentity === 'controller-b' ? true : undefined;
          },
          Minute,
        );
        const takeoverMs = Date.now() - killedAt;
        // lease duration after the last renewal, checked one retry period late at most (+ slack
        // for a loaded machine)
        expect(takeoverMs).toBeLessThanOrEqual(Lease.duration + 2 * Lease.retry + 2000);
        // THEN the rollout completes under the new leader, within maxUnavailable
        await agents.waitForAll(target, 5 * Minute, workerNames());
        await waitUpdated('worker', target, Workers);
        sampler.stop();
        expect(sampler.maxUnavailable).toBeLessThanOrEqual(2);
        expect(acting(b).length).toBeGreaterThan(0);
      } finally {
        sampler.stop();
      }
    },
    10 * Minute,
  );

  it(
    'upgrade: the operator reports the new version only once master is Updated at it',
    async () => {
      // GIVEN the new operator before its ConfigMap: it refuses the old data
      expect(await operator.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      operator = startOperator(NextRelease);
      const refusing = await until('the operator to refuse the old ConfigMap', async () => {
        const co = await admin.get<ClusterOperator>(Resources.clusterOperator, 'machine-config');
        const d = co.status?.conditions?.find((c) => c.type === 'Degraded');
        return d?.status === 'True' ? co : undefined;
      });
      const degraded = refusing.status?.conditions?.find((c) => c.type === 'Degraded');
      expect(degraded).toMatchObject({
        reason: 'RenderConfigFailed',
        message: `Unable to apply ${NextRelease}: refusing to read osImageURL version "${Release}", operator version "${NextRelease}"`,
      });
      expect(refusing.status?.versions?.[0]).toEqual({ name: 'operator', version: Release });
      // as upstream, a Warning event on the ClusterOperator says so
      const warned = await until('the OperatorDegraded event', async () => {
        const events = await admin.list<Event>(Resources.event, { namespace: 'default' });
        return events.items.find(
          (e) =>
            e.reason === 'OperatorDegraded: RenderConfigFailed' &&
            e.involvedObject.kind === 'ClusterOperator',
        );
      });
      expect([warned.type, warned.message]).toEqual(['Warning', degraded?.message]);
      // WHEN the release's ConfigMap lands and the new controller is rolled out (a new process:
      // its first sync renders every pool, now with the new OS image)
      const beforeMaster = (await getPool('master')).spec.configuration?.name ?? '';
      const beforeWorker = (await getPool('worker')).spec.configuration?.name ?? '';
      for (const c of controllers) await c.stop('SIGTERM');
      await applyOsImageUrls(NextRelease, NextOsImage);
      startController('controller-c', true);
      const progressing = await until('Progressing towards the new release', async () => {
        const co = await admin.get<ClusterOperator>(Resources.clusterOperator, 'machine-config');
        const p = co.status?.conditions?.find((c) => c.type === 'Progressing');
        return p?.status === 'True' && p.message === `Working towards ${NextRelease}`
          ? co
          : undefined;
      });
      expect(progressing.status?.versions?.[0]).toEqual({ name: 'operator', version: Release });
      expect(progressing.status?.extension).toHaveProperty('lastSyncError');
      // THEN both pools roll to the new OS image, and the new version is reported at the end
      const master = await newTarget('master', beforeMaster);
      const worker = await newTarget('worker', beforeWorker);
      // Watch for the new version showing up before master-0 runs the new config.
      let early: string | undefined;
      const watch = setInterval(() => {
        void Promise.all([
          admin.get<ClusterOperator>(Resources.clusterOperator, 'machine-config'),
          admin.get<Node>(Resources.node, 'master-0'),
        ]).then(
          ([c, n]) => {
            const current = n.metadata.annotations?.[Annotation.currentConfig];
            if (c.status?.versions?.[0]?.version === NextRelease && current !== master)
              early ??= `version ${NextRelease} reported while master-0 runs ${current ?? ''}`;
          },
          () => undefined,
        );
      }, 100);
      try {
        await agents.waitForAll(master, 10 * Minute, ['master-0']);
        await agents.waitForAll(worker, 10 * Minute, workerNames());
        await waitUpdated('master', master, 1);
        await waitUpdated('worker', worker, Workers);
      } finally {
        clearInterval(watch);
      }
      expect(early).toBeUndefined();
      const co = await until(
        'the new version to be reported',
        async () => {
          const c = await admin.get<ClusterOperator>(Resources.clusterOperator, 'machine-config');
          return c.status?.versions?.[0]?.version === NextRelease ? c : undefined;
        },
        3 * Minute,
      );
      const master0 = await admin.get<Node>(Resources.node, 'master-0');
      expect(master0.metadata.annotations?.[Annotation.currentConfig]).toBe(master);
      expect(co.status?.conditions?.find((c) => c.type === 'Degraded')?.status).toBe('False');
      const settled = await until('Progressing to end', async () => {
        const c = await admin.get<ClusterOperator>(Resources.clusterOperator, 'machine-config');
        const p = c.status?.conditions?.find((x) => x.type === 'Progressing');
        return p?.status === 'False' ? p : undefined;
      });
      expect(settled.message).toBe(`Cluster version is ${NextRelease}`);
    },
    15 * Minute,
  );
});

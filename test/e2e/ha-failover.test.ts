/**
 * The failover drill of the highly available control plane: `HaControlPlane` with 3 etcd
 * members, 3 `mco apiserver --storage etcd`, 2 `mco controller --leader-elect` and the operator,
 * all real processes; 20 workers played by in-process agents (test/support/node-agents.ts).
 *
 * While a rollout runs, one etcd member, then the API server the leading controller talks to, then
 * the leading controller are SIGKILLed by PID, one after the other (the restart policy brings the
 * API server and the controller back, as kubelet would; the etcd member stays down). Checked:
 * - the rollout completes and the pool reports Updated;
 * - a sampler never sees more than maxUnavailable workers unavailable;
 * - every ConfigMap create a client saw acknowledged (through the rotating front, during all of
 *   it) is present at the end with the acknowledged resourceVersion;
 * - a watcher on an API server that stays up sees every acknowledged create, revisions strictly
 *   increasing, and the last event it saw of each node is the node's final resourceVersion.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/adapters/kube-client.js';
import type { Lease } from '../../src/api/coordination/v1/lease.js';
import type { ConfigMap } from '../../src/api/core/v1/config-map.js';
import type { Node } from '../../src/api/core/v1/node.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../../src/api/meta/v1/status-error.js';
import { Resources } from '../../src/api/resource-refs.js';
import { HaControlPlane } from '../../src/box/ha-control-plane.js';
import { isUnavailableForUpdate } from '../../src/logic/rollout/node-state.js';
import type {
  ApiObject,
  ClientWatchEvent,
  ResourceClient,
} from '../../src/ports/resource-client.js';
import { hasMcoCommand, McoBin } from '../support/mco-processes.js';
import { NodeAgents } from '../support/node-agents.js';
import { sleep, until } from '../support/until.js';

const Namespace = 'openshift-machine-config-operator';
const DrillNamespace = 'ha-drill';
const Release = '4.17.0';
const OsImage = 'quay.io/openshift/os@sha256:1111';
const Workers = 20;
const MaxUnavailable = 2;
const ApplyMs = 1500;
const Minute = 60_000;

/** Whether a failed call may succeed when repeated: the connection broke or the server said 5xx. */
function transient(e: unknown): boolean {
  return !isStatusError(e) || e.code >= 500;
}

/**
 * The client a node agent would have: calls that fail because an API server died are repeated
 * (on a new connection, so on another server). The agents' writes are merge patches, so a repeat
 * after an unseen success changes nothing.
 */
function retrying(client: ResourceClient): ResourceClient {
  const again = async <T>(call: () => Promise<T>): Promise<T> => {
    const deadline = Date.now() + Minute;
    for (;;) {
      try {
        return await call();
      } catch (e) {
        if (!transient(e) || Date.now() > deadline) throw e;
        await sleep(200);
      }
    }
  };
  return {
    get: (...a) => again(() => client.get(...a)),
    list: (...a) => again(() => client.list(...a)),
    watch: (...a) => client.watch(...a),
    create: (...a) => again(() => client.create(...a)),
    update: (...a) => again(() => client.update(...a)),
    updateStatus: (...a) => again(() => client.updateStatus(...a)),
    updateApproval: (...a) => again(() => client.updateApproval(...a)),
    patch: (...a) => again(() => client.patch(...a)),
    delete: (...a) => again(() => client.delete(...a)),
    evict: (...a) => again(() => client.evict(...a)),
  };
}

/** Lists the workers every 100 ms and keeps the largest number unavailable at once. */
class Sampler {
  maxUnavailable = 0;
  samples = 0;
  worst: string[] = [];
  readonly #timer: NodeJS.Timeout;
  #busy = false;
  readonly client: ResourceClient;

  constructor(client: ResourceClient) {
    this.client = client;
    this.#timer = setInterval(() => {
      void this.#tick();
    }, 100);
  }

  async #tick(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const nodes = await this.client.list<Node>(Resources.node, {
        labelSelector: 'node-role.kubernetes.io/worker',
      });
      const unavailable = nodes.items.filter(isUnavailableForUpdate);
      if (unavailable.length > this.maxUnavailable) {
        this.maxUnavailable = unavailable.length;
        this.worst = unavailable.map((n) => n.metadata.name ?? '');
      }
      this.samples++;
    } catch {
      // a failed read (a server just died) is no sample
    } finally {
      this.#busy = false;
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** Creates ConfigMaps one after the other and remembers those the server acknowledged. */
class AckedWriter {
  readonly acked = new Map<string, string>();
  failed = 0;
  #n = 0;
  #stopped = false;
  readonly #done: Promise<void>;
  readonly client: ResourceClient;

  constructor(client: ResourceClient) {
    this.client = client;
    this.#done = this.#loop();
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      const name = `ack-${String(++this.#n)}`;
      try {
        const cm = await this.client.create<ConfigMap>(Resources.configMap, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: DrillNamespace },
          data: { n: String(this.#n) },
        });
        this.acked.set(name, cm.metadata.resourceVersion ?? '');
      } catch {
        this.failed++;
      }
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#done;
  }
}

interface SeenEvent {
  readonly type: string;
  readonly kind: string;
  readonly name: string;
  readonly rv: number;
}

/**
 * Watches ConfigMaps of the drill namespace and Nodes on one API server from a given revision;
 * if the stream ends it watches again from the last revision it saw (as an informer does), so a
 * lost event would show as a gap against the acknowledged writes.
 */
class Watcher {
  readonly events: SeenEvent[] = [];
  readonly errors: string[] = [];
  restarts = 0;
  readonly #abort = new AbortController();
  readonly #runs: Promise<void>[];

  constructor(client: ResourceClient, from: { configMaps: string; nodes: string }) {
    this.#runs = [
      this.#run('ConfigMap', from.configMaps, (rv, onEvent) =>
        client.watch<ConfigMap>(
          Resources.configMap,
          { namespace: DrillNamespace, resourceVersion: rv, signal: this.#abort.signal },
          onEvent,
        ),
      ),
      this.#run('Node', from.nodes, (rv, onEvent) =>
        client.watch<Node>(
          Resources.node,
          { resourceVersion: rv, signal: this.#abort.signal },
          onEvent,
        ),
      ),
    ];
  }

  async #run(
    kind: string,
    from: string,
    watch: (rv: string, onEvent: (e: ClientWatchEvent<ApiObject>) => void) => Promise<void>,
  ): Promise<void> {
    let rv = from;
    while (!this.#stopped()) {
      try {
        await watch(rv, (e) => {
          if (e.type === 'ERROR') {
            this.errors.push(`${kind}: ${e.status.message ?? ''}`);
            return;
          }
          if (e.type === 'BOOKMARK') return;
          const o = e.object;
          rv = o.metadata.resourceVersion ?? rv;
          this.events.push({
            type: e.type,
            kind,
            name: o.metadata.name ?? '',
            rv: Number(o.metadata.resourceVersion),
          });
        });
      } catch (e) {
        if (this.#stopped()) return;
        this.errors.push(`${kind}: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (this.#stopped()) return;
      this.restarts++;
      await sleep(200);
    }
  }

  /** A method, not the property, so the compiler does not narrow it across awaits. */
  #stopped(): boolean {
    return this.#abort.signal.aborted;
  }

  of(kind: string): SeenEvent[] {
    return this.events.filter((e) => e.kind === kind);
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all(this.#runs);
  }
}

describe('HA control plane failover drill', () => {
  let dir = '';
  let plane: HaControlPlane | undefined;
  let admin: ResourceClient;
  let agents: NodeAgents | undefined;

  const getPool = (name: string) => admin.get<MachineConfigPool>(Resources.machineConfigPool, name);

  async function leaderIndex(): Promise<number> {
    const lease = await admin.get<Lease>(Resources.lease, 'machine-config-controller', Namespace);
    const holder = lease.spec?.holderIdentity ?? '';
    const m = /^controller-(\d+)$/.exec(holder);
    if (m === null) throw new Error(`unexpected lease holder ${holder}`);
    return Number(m[1]);
  }

  async function waitUpdated(pool: string, target: string, machines: number): Promise<void> {
    await until(
      `pool ${pool} Updated at ${target}`,
      async () => {
        const p = await getPool(pool);
        const updated = p.status?.conditions?.find((c) => c.type === 'Updated');
        return updated?.status === 'True' &&
          p.status?.configuration?.name === target &&
          p.status.updatedMachineCount === machines
          ? true
          : undefined;
      },
      5 * Minute,
    );
  }

  function newTarget(pool: string, old: string): Promise<string> {
    return until(`pool ${pool} to render past ${old}`, async () => {
      const name = (await getPool(pool)).spec.configuration?.name;
      return name !== undefined && name !== '' && name !== old ? name : undefined;
    });
  }

  /** Waits until `count` more node updates have finished than `base`. */
  function progressed(base: number, count: number): Promise<boolean> {
    return until(
      `${String(count)} more nodes to finish`,
      () => {
        const done = (agents?.updates ?? []).filter((u) => u.doneAt !== undefined).length;
        return Promise.resolve(done >= base + count ? true : undefined);
      },
      5 * Minute,
    );
  }

  const doneCount = () => (agents?.updates ?? []).filter((u) => u.doneAt !== undefined).length;

  beforeAll(async () => {
    if (!hasMcoCommand('controller')) throw new Error('`mco controller --help` fails: build first');
    dir = mkdtempSync(join(tmpdir(), 'mco-ha-drill-'));
    plane = await HaControlPlane.start({
      dataDir: dir,
      mco: [process.execPath, McoBin],
      etcdRequestTimeoutMs: 3000,
      mcsUrl: 'https://api-int.example.com:22623',
      restartAfterMs: 1000,
      controllerArgs: [
        '--render-delay',
        '200ms',
        '--node-update-delay',
        '0s',
        '--drain-update-delay',
        '0s',
        '--leader-elect-lease-duration',
        '4s',
        '--leader-elect-renew-deadline',
        '3s',
        '--leader-elect-retry-period',
        '500ms',
      ],
      operatorArgs: [
        '--release-version',
        Release,
        '--operator-image',
        'quay.io/openshift/mco:test',
        '--poll-interval',
        '200ms',
        '--controller-config-timeout',
        '60s',
      ],
    });
    admin = retrying(createKubeClient({ kubeconfigPath: plane.kubeconfig }));
    await admin.create(Resources.configMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: Namespace },
      data: {
        baseOSContainerImage: OsImage,
        baseOSExtensionsContainerImage: `${OsImage}-extensions`,
        osImageURL: '',
        releaseVersion: Release,
      },
    });
    try {
      await admin.create(Resources.namespace, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: DrillNamespace },
      });
    } catch (e) {
      if (!isStatusError(e, 'AlreadyExists')) throw e;
    }
    const worker = await newTarget('worker', '');
    agents = new NodeAgents({ client: admin, applyMs: ApplyMs });
    await agents.add(
      Array.from({ length: Workers }, (_, i) => ({
        name: `worker-${String(i)}`,
        role: 'worker',
        config: worker,
      })),
    );
    await waitUpdated('worker', worker, Workers);
  }, 10 * Minute);

  afterAll(async () => {
    await agents?.stop();
    await plane?.stop();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  }, 3 * Minute);

  it(
    'a rollout completes through the loss of an etcd member, the leader’s API server and the leader; no acknowledged write or watch event is lost',
    async () => {
      const ha = plane;
      if (ha === undefined) throw new Error('no control plane');
      await admin.patch(
        Resources.machineConfigPool,
        'worker',
        { spec: { maxUnavailable: MaxUnavailable } },
        'merge',
      );
      // GIVEN the leader, the API server it talks to, and a watcher on another server
      const leader = await leaderIndex();
      const leaderServer = await until('the leader to talk to an API server', () =>
        Promise.resolve(ha.apiServerOfController(leader)),
      );
      // Each controller's front prefers its own server (controller i → server i); the last server
      // is no controller's first choice, so no leader change can make it the one to kill.
      const watched = ha.apiServers.length - 1;
      expect(leaderServer).not.toBe(watched);
      const direct = createKubeClient({ kubeconfigPath: ha.directKubeconfig(watched) });
      const [cms, nodes] = await Promise.all([
        direct.list(Resources.configMap, { namespace: DrillNamespace }),
        direct.list(Resources.node),
      ]);
      const watcher = new Watcher(direct, {
        configMaps: cms.resourceVersion,
        nodes: nodes.resourceVersion,
      });
      const writer = new AckedWriter(createKubeClient({ kubeconfigPath: ha.kubeconfig }));
      const sampler = new Sampler(admin);
      const killed: string[] = [];
      try {
        const before = (await getPool('worker')).spec.configuration?.name ?? '';
        await admin.create(Resources.machineConfig, {
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: 'MachineConfig',
          metadata: {
            name: '50-worker-ha-drill',
            labels: { 'machineconfiguration.openshift.io/role': 'worker' },
          },
          spec: {
            config: {
              ignition: { version: '3.2.0' },
              storage: {
                files: [{ path: '/etc/ha-drill', mode: 420, contents: { source: 'data:,drill' } }],
              },
            },
          },
        });
        const target = await newTarget('worker', before);
        const rollout = agents?.waitForAll(target, 8 * Minute);

        // WHEN, while it runs: an etcd member (the etcd leader) dies
        await until('the rollout to start', () =>
          Promise.resolve((agents?.busy().length ?? 0) > 0 ? true : undefined),
        );
        const etcdLeader = await ha.etcd.leader();
        await ha.etcd.member(etcdLeader).kill();
        killed.push(`etcd-${String(etcdLeader)}`);
        // … then the API server the leading controller talks to
        await progressed(doneCount(), 3);
        const leaderNow = await leaderIndex();
        const server = ha.apiServerOfController(leaderNow);
        expect(server).toBeDefined();
        expect(server).not.toBe(watched);
        const apiPid = ha.apiServer(server ?? -1).process.pid;
        expect(apiPid).toBeDefined();
        process.kill(apiPid ?? 0, 'SIGKILL');
        await ha.apiServer(server ?? -1).process.exited();
        killed.push(`apiserver-${String(server)}`);
        // … then the leading controller
        await progressed(doneCount(), 3);
        const leaderThen = await leaderIndex();
        const controllerPid = ha.controller(leaderThen).pid;
        expect(controllerPid).toBeDefined();
        process.kill(controllerPid ?? 0, 'SIGKILL');
        await ha.controller(leaderThen).exited();
        killed.push(`controller-${String(leaderThen)}`);
        const left = Workers - doneCount();

        // THEN the rollout completes
        await rollout;
        await waitUpdated('worker', target, Workers);
        sampler.stop();
        await writer.stop();
        expect(killed).toHaveLength(3);
        // (the last kill came while work was left, so it happened during the rollout)
        expect(left).toBeGreaterThan(0);
        expect(sampler.samples).toBeGreaterThan(10);
        expect(sampler.maxUnavailable, sampler.worst.join(', ')).toBeLessThanOrEqual(
          MaxUnavailable,
        );
        expect(sampler.maxUnavailable).toBeGreaterThanOrEqual(1);

        // every acknowledged write is there, at the acknowledged revision
        expect(writer.acked.size).toBeGreaterThan(20);
        const final = await admin.list<ConfigMap>(Resources.configMap, {
          namespace: DrillNamespace,
        });
        const present = new Map(
          final.items.map((c) => [c.metadata.name ?? '', c.metadata.resourceVersion ?? '']),
        );
        const lost = [...writer.acked].filter(([name, rv]) => present.get(name) !== rv);
        expect(lost).toEqual([]);

        // the watcher on the surviving server saw every acknowledged create, in revision order
        await until('the watcher to catch up', () => {
          const seen = new Set(watcher.of('ConfigMap').map((e) => e.name));
          return Promise.resolve(
            [...writer.acked.keys()].every((n) => seen.has(n)) ? true : undefined,
          );
        }).catch(() => undefined);
        const added = new Map(
          watcher
            .of('ConfigMap')
            .filter((e) => e.type === 'ADDED')
            .map((e) => [e.name, String(e.rv)]),
        );
        const missed = [...writer.acked].filter(([name, rv]) => added.get(name) !== rv);
        expect(missed).toEqual([]);
        for (const kind of ['ConfigMap', 'Node']) {
          const rvs = watcher.of(kind).map((e) => e.rv);
          const disorder = rvs.filter((rv, i) => i > 0 && rv <= (rvs[i - 1] ?? 0));
          expect(disorder, kind).toEqual([]);
        }
        // the last Node event seen is each node's final state
        const finalNodes = await direct.list<Node>(Resources.node);
        const lastSeen = new Map<string, number>();
        for (const e of watcher.of('Node')) lastSeen.set(e.name, e.rv);
        const stale = finalNodes.items
          .map((n) => [n.metadata.name ?? '', Number(n.metadata.resourceVersion)] as const)
          .filter(([name, rv]) => lastSeen.get(name) !== rv);
        expect(finalNodes.items).toHaveLength(Workers);
        expect(stale).toEqual([]);
        expect(watcher.errors).toEqual([]);
        // figures for the record (CI log)
        console.info(
          `ha drill: killed ${killed.join(', ')}; ${String(left)} nodes left after the last kill; ` +
            `max unavailable ${String(sampler.maxUnavailable)}/${String(MaxUnavailable)} over ${String(sampler.samples)} samples; ` +
            `${String(writer.acked.size)} creates acknowledged, ${String(writer.failed)} failed; ` +
            `watcher: ${String(watcher.events.length)} events, ${String(watcher.restarts)} re-watches`,
        );
      } finally {
        sampler.stop();
        await writer.stop();
        await watcher.stop();
      }
    },
    15 * Minute,
  );
});

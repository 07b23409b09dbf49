/**
 * In-process stand-ins for machine config daemons: N Nodes on a real API server, each played by an
 * agent that follows the daemon's annotation protocol (docs/reference/daemon.md §7.2, §7.7) through the real
 * client, so the controllers see exactly what real daemons would show them:
 *
 *   desiredConfig ≠ currentConfig
 *     → state=Working                                   (SetWorking)
 *     → desiredDrain=drain-<desired>, wait for lastAppliedDrain to match (the drain controller)
 *     → "apply" for `applyMs` (optionally NotReady for `rebootMs`, as a reboot would be)
 *     → desiredDrain=uncordon-<desired>, wait for lastAppliedDrain to match
 *     → currentConfig=<desired>, state=Done, reason=""   (SetDone)
 *
 * One node informer feeds every agent, so a thousand agents cost one watch. Nodes are created with
 * their role label, an optional zone, a Ready condition, and the annotations the machine config
 * server seeds at first boot (currentConfig = desiredConfig = the pool's config, state=Done).
 * creationTimestamp is the server's (creation order).
 */
import { setMaxListeners } from 'node:events';
import type { Node, NodeCondition } from '../../src/api/core/v1/node.js';
import { isStatusError } from '../../src/api/meta/v1/status-error.js';
import { forEachLimit } from '../../src/lib/for-each-limit.js';
import { Resources } from '../../src/api/resource-refs.js';
import { Annotation, DaemonState } from '../../src/api/machineconfiguration/v1/constants.js';
import type { Clock } from '../../src/ports/clock.js';
import { silentLogger, type Logger } from '../../src/ports/logger.js';
import type { ResourceClient } from '../../src/ports/resource-client.js';
import { Informer } from '../../src/runtime/informer.js';

const ZoneLabel = 'topology.kubernetes.io/zone';

export interface AgentNodeSpec {
  readonly name: string;
  /** `worker`, `master`, or a custom role: the label `node-role.kubernetes.io/<role>`. */
  readonly role: string;
  /** The rendered config the node booted with (currentConfig = desiredConfig, state=Done). */
  readonly config: string;
  readonly zone?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

export interface NodeAgentsOptions {
  readonly client: ResourceClient;
  /** How long "applying" a config takes on each node. */
  readonly applyMs: number;
  /** If set, the node reports Ready=False this long after applying, as during a reboot. */
  readonly rebootMs?: number;
  readonly log?: Logger;
  /** Writes in flight while creating nodes. */
  readonly createParallel?: number;
}

/** One node's update, as the agent lived it (wall-clock ms). */
export interface AgentUpdate {
  readonly node: string;
  readonly from: string;
  readonly to: string;
  readonly startedAt: number;
  drainedAt?: number;
  /** When it went Degraded instead (the node was on `failing`). */
  failedAt?: number;
  doneAt?: number;
}

const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      const t = setTimeout(resolve, ms);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        },
        { once: true },
      );
    }),
};

type Phase = 'idle' | 'starting' | 'draining' | 'applying' | 'uncordoning' | 'finishing' | 'failed';

function annotations(node: Node | undefined): Readonly<Record<string, string>> {
  return node?.metadata.annotations ?? {};
}

function readyCondition(status: 'True' | 'False'): NodeCondition {
  return {
    type: 'Ready',
    status,
    reason: status === 'True' ? 'KubeletReady' : 'KubeletNotReady',
    message: status === 'True' ? 'kubelet is posting ready status' : 'node is rebooting',
    lastHeartbeatTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

class Agent {
  readonly name: string;
  readonly #owner: NodeAgents;
  #phase: Phase = 'idle';
  #target = '';
  #busy = false;
  #current: AgentUpdate | undefined;
  /**
   * The resourceVersion of the agent's own last write. The shared cache may not have seen it yet;
   * acting on an older copy would redo a step (e.g. start the update it just finished), so the
   * agent waits for the event of its own write. (Revisions are integers on this server.)
   */
  #written = 0;

  constructor(name: string, owner: NodeAgents) {
    this.name = name;
    this.#owner = owner;
  }

  get phase(): Phase {
    return this.#phase;
  }

  /** Looks at the latest cached node and takes the next step if one is due. */
  /** Remembers the revision a write of ours produced. */
  wrote(node: Node): void {
    this.#written = Math.max(this.#written, Number(node.metadata.resourceVersion ?? 0));
  }

  kick(): void {
    if (this.#busy || this.#owner.stopped) return;
    const node = this.#owner.cached(this.name);
    if (node === undefined || Number(node.metadata.resourceVersion ?? 0) < this.#written) return;
    const step = this.#nextStep(node);
    if (step === undefined) return;
    this.#busy = true;
    step()
      .catch((e: unknown) => {
        this.#owner.log.warn('agent step failed, retrying', {
          node: this.name,
          phase: this.#phase,
          error: e instanceof Error ? e.message : String(e),
        });
        return realClock.sleep(200);
      })
      .finally(() => {
        this.#busy = false;
        this.kick();
      });
  }

  #nextStep(node: Node): (() => Promise<void>) | undefined {
    const a = annotations(node);
    const desired = a[Annotation.desiredConfig] ?? '';
    const current = a[Annotation.currentConfig] ?? '';
    const applied = a[Annotation.lastAppliedDrain];
    switch (this.#phase) {
      case 'idle':
        if (desired === '' || desired === current) return undefined;
        return () => this.#start(node, desired);
      case 'starting':
        return () => this.#requestDrain(node);
      case 'draining':
        return applied === `drain-${this.#target}` ? () => this.#apply() : undefined;
      case 'applying':
        return undefined;
      case 'uncordoning':
        return applied === `uncordon-${this.#target}` ? () => this.#finish() : undefined;
      case 'finishing':
        return undefined;
      case 'failed':
        // Degraded until taken off the failing list, then the update is tried again.
        return this.#owner.failing.has(this.name) ? undefined : () => this.#apply();
    }
  }

  async #start(node: Node, desired: string): Promise<void> {
    this.#target = desired;
    this.#current = {
      node: this.name,
      from: annotations(node)[Annotation.currentConfig] ?? '',
      to: desired,
      startedAt: Date.now(),
    };
    this.#owner.updates.push(this.#current);
    this.#owner.onStart?.(this.#current);
    await this.#owner.patchAnnotations(this.name, { [Annotation.state]: DaemonState.Working });
    this.#phase = 'starting';
  }

  async #requestDrain(node: Node): Promise<void> {
    const want = `drain-${this.#target}`;
    if (annotations(node)[Annotation.lastAppliedDrain] !== want)
      await this.#owner.patchAnnotations(this.name, { [Annotation.desiredDrain]: want });
    this.#phase = 'draining';
  }

  async #apply(): Promise<void> {
    if (this.#owner.failing.has(this.name)) {
      this.#phase = 'failed';
      if (this.#current !== undefined) this.#current.failedAt = Date.now();
      await this.#owner.patchAnnotations(this.name, {
        [Annotation.state]: DaemonState.Degraded,
        [Annotation.reason]: 'failed to apply the config (injected by the test)',
      });
      return;
    }
    this.#phase = 'applying';
    if (this.#current !== undefined) this.#current.drainedAt = Date.now();
    await realClock.sleep(this.#owner.applyMs);
    const reboot = this.#owner.rebootMs;
    if (reboot !== undefined && reboot > 0) {
      await this.#owner.setReady(this.name, 'False');
      await realClock.sleep(reboot);
      await this.#owner.setReady(this.name, 'True');
    }
    await this.#owner.patchAnnotations(this.name, {
      [Annotation.desiredDrain]: `uncordon-${this.#target}`,
    });
    this.#phase = 'uncordoning';
  }

  async #finish(): Promise<void> {
    this.#phase = 'finishing';
    await this.#owner.patchAnnotations(this.name, {
      [Annotation.currentConfig]: this.#target,
      [Annotation.state]: DaemonState.Done,
      [Annotation.reason]: '',
    });
    if (this.#current !== undefined) this.#current.doneAt = Date.now();
    this.#current = undefined;
    this.#phase = 'idle';
  }
}

export class NodeAgents {
  readonly client: ResourceClient;
  readonly applyMs: number;
  readonly rebootMs: number | undefined;
  readonly log: Logger;
  readonly updates: AgentUpdate[] = [];
  /** Nodes whose next apply fails: Degraded, until taken off again (then the apply is retried). */
  readonly failing = new Set<string>();
  /** Called as each update starts, before any of its writes (a test picks a node to fail). */
  onStart: ((update: AgentUpdate) => void) | undefined;
  readonly informer: Informer<Node>;
  readonly #agents = new Map<string, Agent>();
  readonly #stop = new AbortController();
  readonly #createParallel: number;
  #run: Promise<void> | undefined;

  constructor(options: NodeAgentsOptions) {
    // Every write of every agent listens on this one signal.
    setMaxListeners(0, this.#stop.signal);
    this.client = options.client;
    this.applyMs = options.applyMs;
    this.rebootMs = options.rebootMs;
    this.log = options.log ?? silentLogger;
    this.#createParallel = options.createParallel ?? 32;
    this.informer = new Informer<Node>({
      client: this.client,
      ref: Resources.node,
      clock: realClock,
      log: this.log,
    });
    this.informer.addHandler({
      onAdd: (n) => this.#agents.get(n.metadata.name ?? '')?.kick(),
      onUpdate: (_o, n) => this.#agents.get(n.metadata.name ?? '')?.kick(),
    });
  }

  get stopped(): boolean {
    return this.#stop.signal.aborted;
  }

  /** Creates the nodes (or takes over existing ones of the same name) and starts their agents. */
  async add(specs: readonly AgentNodeSpec[]): Promise<void> {
    await forEachLimit(specs, this.#createParallel, (spec) => this.#createNode(spec));
    for (const spec of specs) this.#agents.set(spec.name, new Agent(spec.name, this));
    this.#run ??= this.informer.run(this.#stop.signal);
    await this.informer.waitForSync(this.#stop.signal);
    for (const agent of this.#agents.values()) agent.kick();
  }

  /** Stops the agents (they leave their nodes as they are). */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#run;
  }

  /** Takes a node off the failing list: its update is tried again. */
  recover(name: string): void {
    this.failing.delete(name);
    this.#agents.get(name)?.kick();
  }

  names(): string[] {
    return [...this.#agents.keys()];
  }

  cached(name: string): Node | undefined {
    return this.informer.get(name);
  }

  /** Nodes whose agent is mid-update. */
  busy(): string[] {
    return [...this.#agents.values()].filter((a) => a.phase !== 'idle').map((a) => a.name);
  }

  async #createNode(spec: AgentNodeSpec): Promise<void> {
    const labels: Record<string, string> = {
      'kubernetes.io/hostname': spec.name,
      'kubernetes.io/os': 'linux',
      [`node-role.kubernetes.io/${spec.role}`]: '',
      ...(spec.zone === undefined ? {} : { [ZoneLabel]: spec.zone }),
      ...spec.labels,
    };
    const node: Node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: spec.name,
        labels,
        annotations: {
          [Annotation.currentConfig]: spec.config,
          [Annotation.desiredConfig]: spec.config,
          [Annotation.state]: DaemonState.Done,
        },
      },
      spec: {},
    };
    try {
      await this.client.create(Resources.node, node);
    } catch (e) {
      if (!isStatusError(e, 'AlreadyExists')) throw e;
    }
    await this.setReady(spec.name, 'True');
  }

  async patchAnnotations(name: string, values: Record<string, string>): Promise<void> {
    const node = await this.client.patch<Node>(
      Resources.node,
      name,
      { metadata: { annotations: values } },
      'merge',
      { signal: this.#stop.signal },
    );
    this.#agents.get(name)?.wrote(node);
  }

  async setReady(name: string, status: 'True' | 'False'): Promise<void> {
    const node = await this.client.patch<Node>(
      Resources.node,
      name,
      { status: { conditions: [readyCondition(status)] } },
      'merge',
      { subresource: 'status', signal: this.#stop.signal },
    );
    this.#agents.get(name)?.wrote(node);
  }

  /** Resolves once every named node (default: all) reports `config` as current and Done. */
  async waitForAll(config: string, timeoutMs: number, names = this.names()): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = names.filter((n) => {
        const a = annotations(this.cached(n));
        return a[Annotation.currentConfig] !== config || a[Annotation.state] !== DaemonState.Done;
      });
      if (left.length === 0) return;
      if (Date.now() > deadline)
        throw new Error(
          `${left.length} nodes not at ${config} yet: ${left.slice(0, 5).join(', ')}`,
        );
      await realClock.sleep(50);
    }
  }
}

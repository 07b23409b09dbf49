/**
 * Runs the controller's reconcilers in this process against a real `mco apiserver` process: the
 * controller talks through the client-node ResourceClient with the controller identity's
 * kubeconfig, tests write objects as admin. Delays are shortened; everything else is production.
 */
import { createKubeClient } from '../../src/adapters/kube-client.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import type { Event } from '../../src/api/core/v1/event.js';
import type { Node } from '../../src/api/core/v1/node.js';
import { Annotation } from '../../src/api/machineconfiguration/v1/constants.js';
import type { ControllerConfig } from '../../src/api/machineconfiguration/v1/controller-config.js';
import type { MachineConfigPool } from '../../src/api/machineconfiguration/v1/machine-config-pool.js';
import { isStatusError } from '../../src/api/meta/v1/status-error.js';
import { Resources } from '../../src/api/resource-refs.js';
import { ApiEventRecorder } from '../../src/runtime/event-recorder.js';
import type { McoMetrics, PoolMachineCounts } from '../../src/ports/mco-metrics.js';
import {
  createMachineConfigController,
  type MachineConfigControllerOptions,
} from '../../src/controller/machine-config-controller.js';
import { silentLogger, type Logger } from '../../src/ports/logger.js';
import type { ApiObject, ResourceClient, ResourceRef } from '../../src/ports/resource-client.js';
import { Manager } from '../../src/runtime/manager.js';
import { McoVersion } from '../../src/version.js';
import { eventually, startApiServer, type ApiServerProcess } from '../e2e/apiserver-harness.js';

export { eventually };

/** Metrics kept in maps, for assertions. */
class RecordingMetrics implements McoMetrics {
  readonly pools = new Map<string, PoolMachineCounts>();
  readonly drainErrors = new Set<string>();
  setPoolCounts(pool: string, counts: PoolMachineCounts): void {
    this.pools.set(pool, counts);
  }
  setDrainError(node: string): void {
    this.drainErrors.add(node);
  }
  clearDrainError(node: string): void {
    this.drainErrors.delete(node);
  }
  readonly osImageUrlOverrides = new Map<string, boolean>();
  setOsImageUrlOverride(pool: string, overridden: boolean): void {
    this.osImageUrlOverrides.set(pool, overridden);
  }
  readonly poolAlerts = new Map<string, boolean>();
  setPoolAlert(node: string, alert: boolean): void {
    this.poolAlerts.set(node, alert);
  }
  /** mco_state's labels per node: `pool state reason`. */
  readonly poolStates = new Map<string, string>();
  setPoolState(node: string, pool: string, state: string, reason: string): void {
    this.poolStates.set(node, `${pool} ${state} ${reason}`.trim());
  }
  /** mcc_sub_controller_state's series: `subcontroller/state/object`. */
  readonly subControllerStates = new Set<string>();
  subControllerSynced(subcontroller: string, state: string, object: string): void {
    this.subControllerStates.add(`${subcontroller}/${state}/${object}`);
  }
}

/** Logs to stderr when MCO_TEST_LOG is set, else nothing. */
function testLogger(): Logger {
  if (process.env['MCO_TEST_LOG'] === undefined) return silentLogger;
  const write =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      process.stderr.write(`${level} ${message} ${JSON.stringify(fields ?? {})}\n`);
    };
  const log: Logger = {
    debug: () => undefined,
    info: write('INFO'),
    warn: write('WARN'),
    error: write('ERROR'),
    child: () => log,
  };
  return log;
}

export class ControllerHarness {
  readonly server: ApiServerProcess;
  /** The test's own client (system:masters). */
  readonly admin: ResourceClient;
  /** What the controllers use (machine-config-controller identity). */
  readonly client: ResourceClient;
  readonly metrics = new RecordingMetrics();
  readonly log = testLogger();
  #stop: AbortController | undefined;
  #run: Promise<void> | undefined;

  private constructor(server: ApiServerProcess) {
    this.server = server;
    this.admin = createKubeClient({ kubeconfigPath: server.kubeconfig('admin') });
    this.client = createKubeClient({ kubeconfigPath: server.kubeconfig('controller') });
  }

  static async start(): Promise<ControllerHarness> {
    // GC every second, so rendered configs go with their pool while a test waits.
    return new ControllerHarness(
      await startApiServer({ storage: 'memory', extraArgs: ['--gc-interval', '1'] }),
    );
  }

  /** Starts the controllers (all unless `only` says otherwise) with test timings. */
  run(
    options: Partial<
      Omit<MachineConfigControllerOptions, 'client' | 'clock' | 'log' | 'events' | 'metrics'>
    > = {},
  ): void {
    const events = new ApiEventRecorder({
      client: this.client,
      clock: systemClock,
      log: this.log,
      component: 'machineconfigcontroller',
    });
    const mcc = createMachineConfigController({
      client: this.client,
      clock: systemClock,
      log: this.log,
      events,
      metrics: this.metrics,
      version: McoVersion,
      templates: [],
      renderDelayMs: 100,
      nodeUpdateDelayMs: 50,
      rateLimiter: { baseDelayMs: 50, maxDelayMs: 1000 },
      ...options,
    });
    const manager = new Manager({ clock: systemClock, log: this.log });
    for (const informer of mcc.informers) manager.addInformer(informer);
    for (const controller of mcc.controllers) manager.addController(controller);
    this.#stop = new AbortController();
    this.#run = manager.run(this.#stop.signal);
  }

  async stopControllers(): Promise<void> {
    this.#stop?.abort();
    await this.#run;
    this.#stop = undefined;
    this.#run = undefined;
  }

  async dispose(): Promise<void> {
    await this.stopControllers();
    await this.server.dispose();
  }

  async get<T extends ApiObject>(ref: ResourceRef, name: string, ns?: string): Promise<T> {
    return this.admin.get<T>(ref, name, ns);
  }

  async tryGet<T extends ApiObject>(
    ref: ResourceRef,
    name: string,
    ns?: string,
  ): Promise<T | undefined> {
    try {
      return await this.admin.get<T>(ref, name, ns);
    } catch (e) {
      if (isStatusError(e, 'NotFound')) return undefined;
      throw e;
    }
  }

  async create<T extends ApiObject>(ref: ResourceRef, object: T): Promise<T> {
    return this.admin.create(ref, object);
  }

  /** Deletes if present. */
  async remove(ref: ResourceRef, name: string, ns?: string): Promise<void> {
    try {
      await this.admin.delete(ref, name, ns);
    } catch (e) {
      if (!isStatusError(e, 'NotFound')) throw e;
    }
  }

  async pool(name: string): Promise<MachineConfigPool> {
    return this.get<MachineConfigPool>(Resources.machineConfigPool, name);
  }

  /** Events about this object (by name, and by UID when given), oldest first. */
  async events(involved: string, uid?: string, namespace = 'default'): Promise<Event[]> {
    const list = await this.admin.list<Event>(Resources.event, { namespace });
    return list.items.filter(
      (e) =>
        e.involvedObject.name === involved && (uid === undefined || e.involvedObject.uid === uid),
    );
  }

  async eventMessages(involved: string, reason: string, uid?: string): Promise<string[]> {
    return (await this.events(involved, uid))
      .filter((e) => e.reason === reason)
      .map((e) => e.message ?? '');
  }

  /**
   * Creates (or replaces the spec of) the ControllerConfig and marks it completed, as the
   * template controller would, so render gates open without running the template controller.
   */
  async completeControllerConfig(
    spec: Partial<ControllerConfig['spec']> & { baseOSContainerImage: string },
    releaseVersion = '4.99.0-test',
  ): Promise<ControllerConfig> {
    const desired: ControllerConfig = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'ControllerConfig',
      metadata: {
        name: 'machine-config-controller',
        annotations: {
          [Annotation.generatedByVersion]: McoVersion.raw,
          [Annotation.releaseImageVersion]: releaseVersion,
        },
      },
      spec: {
        clusterDNSIP: '172.30.0.10',
        cloudProviderConfig: '',
        kubeAPIServerServingCAData: '',
        rootCAData: '',
        cloudProviderCAData: null,
        additionalTrustBundle: null,
        images: {},
        releaseImage: 'quay.io/test/release:latest',
        proxy: null,
        infra: null,
        dns: null,
        ipFamilies: 'IPv4',
        network: null,
        baseOSExtensionsContainerImage: '',
        ...spec,
      },
    };
    const existing = await this.tryGet<ControllerConfig>(
      Resources.controllerConfig,
      'machine-config-controller',
    );
    const cc =
      existing === undefined
        ? await this.admin.create(Resources.controllerConfig, desired)
        : await this.admin.update(Resources.controllerConfig, {
            ...existing,
            metadata: { ...existing.metadata, annotations: desired.metadata.annotations ?? {} },
            spec: desired.spec,
          });
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    return this.admin.updateStatus(Resources.controllerConfig, {
      ...cc,
      status: {
        observedGeneration: cc.metadata.generation ?? 1,
        conditions: [
          {
            type: 'TemplateControllerCompleted',
            status: 'True',
            lastTransitionTime: now,
            message: '',
          },
          {
            type: 'TemplateControllerRunning',
            status: 'False',
            lastTransitionTime: now,
            message: '',
          },
          {
            type: 'TemplateControllerFailing',
            status: 'False',
            lastTransitionTime: now,
            message: '',
          },
        ],
      },
    });
  }
}

export interface NodeSpecInput {
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  /** Node conditions, e.g. `{ Ready: 'True' }`; none → the node has no conditions (ready). */
  readonly conditions?: Record<string, string>;
  readonly unschedulable?: boolean;
}

const A = 'machineconfiguration.openshift.io/';

/** Annotations of a node the daemon left on `current`, moving to `desired` (Done when equal). */
export function daemonAnnotations(current: string, desired = current): Record<string, string> {
  return {
    [`${A}currentConfig`]: current,
    [`${A}desiredConfig`]: desired,
    [`${A}state`]: current === desired ? 'Done' : 'Working',
  };
}

/** Creates a Node (and sets its conditions through the status subresource). */
export async function createNode(
  h: ControllerHarness,
  name: string,
  input: NodeSpecInput = {},
): Promise<Node> {
  const node = await h.admin.create<Node>(Resources.node, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: input.labels ?? {}, annotations: input.annotations ?? {} },
    spec: input.unschedulable === undefined ? {} : { unschedulable: input.unschedulable },
  });
  if (input.conditions === undefined) return node;
  return h.admin.updateStatus<Node>(Resources.node, {
    ...node,
    status: {
      conditions: Object.entries(input.conditions).map(([type, status]) => ({ type, status })),
    },
  });
}

/** Plays the daemon for nodes told to move: current := desired, state Done. Returns who moved. */
export async function completeUpdates(
  h: ControllerHarness,
  names: readonly string[],
): Promise<string[]> {
  const moved: string[] = [];
  for (const name of names) {
    const node = await h.get<Node>(Resources.node, name);
    const a = node.metadata.annotations ?? {};
    const desired = a[`${A}desiredConfig`] ?? '';
    if (desired === '' || (a[`${A}currentConfig`] === desired && a[`${A}state`] === 'Done'))
      continue;
    await h.admin.patch(
      Resources.node,
      name,
      { metadata: { annotations: { [`${A}currentConfig`]: desired, [`${A}state`]: 'Done' } } },
      'merge',
    );
    moved.push(name);
  }
  return moved;
}

export function desiredOf(node: Node): string {
  return node.metadata.annotations?.[`${A}desiredConfig`] ?? '';
}

export { setTimeout as sleep } from 'node:timers/promises';

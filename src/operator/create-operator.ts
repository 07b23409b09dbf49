/**
 * Wires the operator: its caches, the one-key controller that runs the sync round on any change,
 * and a manager that runs them (under a Lease when leader election is on). cmd/ supplies the
 * client, clock, logger and configuration.
 */
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import { Controller } from '../runtime/controller.js';
import type { ControllerMetrics } from '../ports/controller-metrics.js';
import { ApiEventRecorder, type EventRecorder } from '../runtime/event-recorder.js';
import { Manager, type ManagerLeaderElection } from '../runtime/manager.js';
import { allCaches, createOperatorCaches, type OperatorCaches } from './operator-caches.js';
import type { OperatorConfig } from './operator-config.js';
import { ClusterOperatorName, OperatorReconciler } from './operator-reconciler.js';
import { createReleaseFollower } from './release-follower.js';
import type { ReleasePayloadSource } from '../ports/release-payload-source.js';

/** Upstream's operator Lease: `openshift-machine-config-operator/machine-config`. */
export const OperatorLeaseName = 'machine-config';

export interface OperatorOptions {
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: OperatorConfig;
  /** Run only while holding the operator Lease. */
  readonly leaderElection?: ManagerLeaderElection;
  /** The operator's controllers report here (controller_runtime_* and workqueue_*). */
  readonly metrics?: ControllerMetrics;
  /** Follow release images set on ClusterVersion (`mco upgrade --to-image`), read through this. */
  readonly releasePayloads?: ReleasePayloadSource;
  /** Default: Events through the API, from `machine-config-operator`. */
  readonly events?: EventRecorder;
}

export interface Operator {
  readonly manager: Manager;
  readonly caches: OperatorCaches;
  readonly controller: Controller;
}

export function createOperator(options: OperatorOptions): Operator {
  const { client, clock, log, config } = options;
  const caches = createOperatorCaches({ client, clock, log, namespace: config.namespace });
  const release =
    options.releasePayloads === undefined
      ? undefined
      : createReleaseFollower({
          client,
          clock,
          log,
          caches,
          config,
          payloads: options.releasePayloads,
        });
  const controller = new Controller({
    name: 'machine-config-operator',
    reconciler: new OperatorReconciler({
      client,
      clock,
      log,
      caches,
      config: release?.config ?? config,
      events:
        options.events ??
        new ApiEventRecorder({ client, clock, log, component: 'machine-config-operator' }),
    }),
    clock,
    log,
  });
  const everything = (): readonly string[] => [ClusterOperatorName];
  for (const informer of allCaches(caches)) controller.watch(informer, { map: everything });
  if (release !== undefined) controller.watch(release.clusterVersions, { map: everything });
  const manager = new Manager({
    clock,
    log,
    ...(options.leaderElection === undefined ? {} : { leaderElection: options.leaderElection }),
    ...(options.metrics === undefined ? {} : { controllerMetrics: options.metrics }),
  });
  manager.addController(controller);
  if (release !== undefined) manager.addController(release.controller);
  // An empty cluster sends no events: the first round must not wait for one.
  manager.addRunnable({
    run: () => {
      controller.enqueue(ClusterOperatorName);
      return Promise.resolve();
    },
  });
  return { manager, caches, controller };
}

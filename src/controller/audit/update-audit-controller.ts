/**
 * The update audit's controller (api/machineconfiguration/v1/update-audit.ts): for each node,
 * the updates its daemon recorded on the Node that the node's history ConfigMap lacks are joined
 * with why they happened (the MachineConfigs that differ between the two rendered configs, and
 * who changed each, from the stamps frozen on them) and the rendered diff, written to the history
 * (`node-history-NAME` in the MCO namespace), then announced as an event on the Node.
 *
 * Everything it reads and writes is in the cluster, so a restarted controller or a new leader
 * goes on where the last one stopped: a record is in the history once, whoever wrote it (the
 * write holds the ConfigMap's resourceVersion).
 */
import type { ConfigMap } from '../../api/core/v1/config-map.js';
import { EventType } from '../../api/core/v1/event.js';
import type { Node } from '../../api/core/v1/node.js';
import { McoNamespace } from '../../api/machineconfiguration/v1/constants.js';
import {
  AuditAnnotation,
  HistoryKey,
  type DaemonUpdateRecord,
  type NodeUpdateRecord,
} from '../../api/machineconfiguration/v1/update-audit.js';
import { isStatusError } from '../../api/meta/v1/status-error.js';
import {
  MachineConfigurationName,
  type MachineConfiguration,
} from '../../api/operator/v1/machine-configuration.js';
import { Resources } from '../../api/resource-refs.js';
import {
  buildUpdateRecord,
  mergeHistory,
  missingRecords,
  readDaemonRecords,
  updateEventMessage,
} from '../../logic/audit/node-update-record.js';
import { readSourceStamps } from '../../logic/audit/source-stamps.js';
import { explainUpdate, knobsFromMachineConfiguration } from '../../logic/nodeplan/plan-knobs.js';
import { poolsForNode } from '../../logic/rollout/pool-membership.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { ResourceClient } from '../../ports/resource-client.js';
import { Controller } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/event-recorder.js';
import { objectKey } from '../../runtime/informer.js';
import type { Reconciler, ReconcileResult } from '../../runtime/reconciler.js';
import type { RateLimiterOptions } from '../../runtime/work-queue.js';
import { waitForCache } from '../common/wait-for-caches.js';
import type { McoInformers } from '../mco-informers.js';
import { historyConfigMapName, readNodeHistory } from '../../runtime/node-history.js';

export interface UpdateAuditOptions {
  readonly client: ResourceClient;
  readonly informers: Pick<
    McoInformers,
    'nodes' | 'pools' | 'machineConfigs' | 'machineConfigurations'
  >;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: EventRecorder;
  readonly rateLimiter?: RateLimiterOptions;
}

const UpdateAuditControllerName = 'machineconfigcontroller-updateaudit';

/** The reason of the event each audited update gets on its Node. */
const UpdateAuditedReason = 'UpdateAudited';

class UpdateAudit implements Reconciler {
  readonly #o: UpdateAuditOptions;

  constructor(options: UpdateAuditOptions) {
    this.#o = options;
  }

  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const { informers, client } = this.#o;
    const node = informers.nodes.get(name);
    if (node === undefined) return undefined;
    const daemon = readDaemonRecords(node.metadata.annotations?.[AuditAnnotation.lastUpdates]);
    if (daemon.length === 0) return undefined;
    const cmName = historyConfigMapName(name);
    const { configMap, records: history } = await readNodeHistory(client, cmName, signal);
    const missing = missingRecords(history, daemon);
    if (missing.length === 0) return undefined;
    const added = missing.map((r) => this.#record(node, r));
    const data = { [HistoryKey]: JSON.stringify(mergeHistory(history, added)) };
    try {
      if (configMap === undefined)
        await client.create<ConfigMap>(
          Resources.configMap,
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: cmName,
              namespace: McoNamespace,
              annotations: { [AuditAnnotation.node]: name },
            },
            data,
          },
          { signal },
        );
      else await client.update<ConfigMap>(Resources.configMap, { ...configMap, data }, { signal });
    } catch (e) {
      // Another writer got there first (a leader handing over): read again and merge.
      if (isStatusError(e, 'AlreadyExists') || isStatusError(e, 'Conflict'))
        return { requeue: true };
      throw e;
    }
    for (const r of added)
      await this.#o.events.event(
        Resources.node,
        node,
        EventType.Normal,
        UpdateAuditedReason,
        updateEventMessage(r),
      );
    return undefined;
  }

  #record(node: Node, daemon: DaemonUpdateRecord): NodeUpdateRecord {
    const { informers } = this.#o;
    const from = informers.machineConfigs.get(daemon.from);
    const to = informers.machineConfigs.get(daemon.to);
    const settings = informers.machineConfigurations.get(MachineConfigurationName) as
      MachineConfiguration | undefined;
    const plan =
      from === undefined || to === undefined
        ? undefined
        : explainUpdate(from, to, knobsFromMachineConfiguration(settings));
    const pools = poolsForNode(informers.pools.list(), node);
    return buildUpdateRecord({
      node: node.metadata.name ?? '',
      pool: pools.ok ? (pools.value[0]?.metadata.name ?? '') : '',
      daemon,
      from: readSourceStamps(from),
      to: readSourceStamps(to),
      plan: plan?.ok === true ? plan.value : undefined,
    });
  }
}

export function createUpdateAuditController(options: UpdateAuditOptions): Controller {
  const { informers } = options;
  const controller = new Controller({
    name: UpdateAuditControllerName,
    reconciler: new UpdateAudit(options),
    clock: options.clock,
    log: options.log,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  });
  waitForCache(controller, informers.nodes);
  waitForCache(controller, informers.pools);
  waitForCache(controller, informers.machineConfigs);
  waitForCache(controller, informers.machineConfigurations);
  const look = (n: Node): void => {
    if (n.metadata.annotations?.[AuditAnnotation.lastUpdates] !== undefined)
      controller.enqueue(objectKey(n));
  };
  informers.nodes.addHandler({
    onAdd: look,
    onUpdate: (old, n) => {
      if (
        old.metadata.annotations?.[AuditAnnotation.lastUpdates] !==
        n.metadata.annotations?.[AuditAnnotation.lastUpdates]
      )
        look(n);
    },
  });
  return controller;
}

/**
 * One step of the operator's sync round (upstream's syncFuncs) and what a round shares between
 * steps. A step either finishes, fails (the round stops and the operator is Degraded with
 * `<Task>Failed`), or is still waiting (the round stops and is looked at again later).
 */
import type { DiscoveredSpec } from '../logic/operator/discovered-cluster-config.js';
import type { OperatorTask } from '../logic/operator/cluster-operator-status.js';
import type { OsImageUrls } from '../logic/operator/os-image-urls.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ResourceClient } from '../ports/resource-client.js';
import type { EventRecorder } from '../runtime/event-recorder.js';
import type { OperatorCaches } from './operator-caches.js';
import type { OperatorConfig } from './operator-config.js';

export interface OperatorDeps {
  readonly client: ResourceClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly caches: OperatorCaches;
  readonly config: OperatorConfig;
  readonly events: EventRecorder;
}

export type TaskOutcome =
  | { readonly kind: 'Done' }
  /** Still waiting; `report` is published as the ClusterOperator's `lastSyncError` meanwhile. */
  | { readonly kind: 'Pending'; readonly requeueAfterMs: number; readonly report?: string }
  | { readonly kind: 'Failed'; readonly message: string };

export const Done: TaskOutcome = { kind: 'Done' };

/** What the steps of one round share (RenderConfig reads the OS images for the later steps). */
export interface RoundContext {
  readonly deps: OperatorDeps;
  readonly signal: AbortSignal;
  osImages: OsImageUrls | undefined;
  /** What the cluster's Infrastructure, Network, DNS and Proxy decide (RenderConfig). */
  discovered: DiscoveredSpec | undefined;
  /** The ClusterOperator's notices (`status.extension`); kept from round to round. */
  readonly notices: Record<string, string>;
}

export interface OperatorStep {
  readonly task: OperatorTask;
  run(ctx: RoundContext): Promise<TaskOutcome>;
}

/**
 * What the parts of an update share: the Host, the cluster side of the node (absent without a
 * cluster: `--once-from`), the journal and the writer. The updater (updater.ts) builds it once and
 * hands it to the execution, the rollback and the post-config actions.
 */
import type { Clock } from '../ports/clock.js';
import type { Host } from '../ports/host.js';
import type { Logger } from '../ports/logger.js';
import type { ClusterNode } from './cluster-node.js';
import type { ConfigWriter } from './config-writer.js';
import type { CrashPoints } from './crash-points.js';
import type { DaemonEvents } from './daemon-events.js';
import type { DaemonMetrics } from '../ports/daemon-metrics.js';
import type { JournalStore } from './update-journal.js';

export interface UpdateDeps {
  readonly host: Host;
  readonly log: Logger;
  readonly clock: Clock;
  readonly events: DaemonEvents;
  readonly metrics: DaemonMetrics;
  readonly crash: CrashPoints;
  readonly cluster?: ClusterNode;
  readonly journal: JournalStore;
  readonly writer: ConfigWriter;
  readonly signal?: AbortSignal;
}

export type UpdateResult =
  /** The reboot was requested; the node validates and completes after it. */
  | { readonly kind: 'rebooting' }
  /** Applied without a reboot; the caller completes (uncordon, Done). */
  | { readonly kind: 'rebootless' };

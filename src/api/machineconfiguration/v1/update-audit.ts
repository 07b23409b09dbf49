/**
 * The update audit (docs/rollouts.md "Who caused this reboot"): ours, on upstream's objects by
 * annotation, and one ConfigMap of history per node. Four writers, each of what it knows:
 *
 * - the API server stamps every MachineConfig write that changes what renders with the requesting
 *   user and the time (`changedBy`, `changedAt`), as kube's audit log would name them; a client
 *   cannot set them (they are replaced on every write);
 * - the render controller freezes the stamps of a rendered config's sources on it (`sources`), so
 *   what a later change of an MC says cannot rewrite why an earlier config was made;
 * - the daemon records on its Node what each update did (`lastUpdates`), from its journal, when
 *   it reports Done;
 * - the node controller joins them into the node's history ConfigMap and an event on the Node.
 */

export const AuditAnnotation = {
  changedBy: 'audit.mco.dev/changed-by',
  changedAt: 'audit.mco.dev/changed-at',
  /** On a rendered MachineConfig: JSON SourceStamp[]. */
  sources: 'audit.mco.dev/sources',
  /** On a Node: JSON DaemonUpdateRecord[], the latest last, at most MaxDaemonRecords. */
  lastUpdates: 'audit.mco.dev/last-updates',
  /** On a node's history ConfigMap: the node's full name (the ConfigMap's may be shortened). */
  node: 'audit.mco.dev/node',
} as const;

/** What the Node keeps: enough for a controller that was down for a few updates. */
export const MaxDaemonRecords = 4;

/** Records a node's history ConfigMap keeps, the latest last. */
export const MaxHistoryRecords = 64;

/** The data key of a node's history ConfigMap: JSON NodeUpdateRecord[]. */
export const HistoryKey = 'updates.json';

/** Who last changed a MachineConfig, and how we know. */
export interface ChangeStamp {
  /** A user name (`admission`), or the field manager (`managedFields`: no user is recorded). */
  readonly by: string;
  readonly at: string;
  readonly source: 'admission' | 'managedFields';
}

/** One source MachineConfig of a rendered config, as it was when the config was rendered. */
export interface SourceStamp {
  readonly name: string;
  /** A digest of its spec: a change between two rendered configs is a different hash. */
  readonly hash: string;
  readonly changed?: ChangeStamp;
}

/** What the daemon did for one update, from its journal. */
export interface DaemonUpdateRecord {
  readonly from: string;
  readonly to: string;
  readonly startedAt: string;
  readonly doneAt: string;
  /** The post-config actions as `mco render --explain` words them (`Reboot`, `Reload crio.service`, `None`). */
  readonly actions: readonly string[];
  readonly drained: boolean;
  readonly rebooted: boolean;
}

/** How a source MachineConfig differs between the old and the new rendered config. */
export interface ConfigChange {
  readonly name: string;
  readonly change: 'added' | 'removed' | 'changed';
  /** Who made the new content (added, changed); for a removal, who last changed it before. */
  readonly changed?: ChangeStamp;
}

/** One node update in a node's history: why (the changes), what (the diff) and what it did. */
export interface NodeUpdateRecord extends DaemonUpdateRecord {
  readonly node: string;
  readonly pool: string;
  readonly changes: readonly ConfigChange[];
  /** The rendered diff in a line: `files /etc/a, /etc/b; units x.service; kernel arguments`. */
  readonly diff: string;
}

/**
 * A node update as the audit keeps it: the daemon's record of what it did, the MachineConfigs
 * that differ between the two rendered configs and who changed each, and the rendered diff in a
 * line; and a node's history with new records merged in, once each whoever merges them (a
 * restarted controller or a new leader finds on the Node what the last one had already written).
 */
import type {
  ConfigChange,
  DaemonUpdateRecord,
  NodeUpdateRecord,
  SourceStamp,
} from '../../api/machineconfiguration/v1/update-audit.js';
import {
  MaxDaemonRecords,
  MaxHistoryRecords,
} from '../../api/machineconfiguration/v1/update-audit.js';
import type { PlanSummary } from '../nodeplan/plan-summary.js';
import { changeStampText } from './change-stamp.js';
import { configChanges } from './source-stamps.js';

/** `files /etc/a, /etc/b; units x.service; SSH keys; kernel arguments; OS image`. */
function diffLine(s: PlanSummary | undefined): string {
  if (s === undefined) return 'unknown (a rendered config is gone)';
  const parts = [
    ...(s.changedPaths.length > 0 ? [`files ${s.changedPaths.join(', ')}`] : []),
    ...(s.changedUnits.length > 0 ? [`units ${s.changedUnits.join(', ')}`] : []),
    ...(s.sshKeys ? ['SSH keys'] : []),
    ...(s.kernelArguments !== null ? ['kernel arguments'] : []),
    ...(s.kernelType !== null ? ['kernel type'] : []),
    ...(s.extensions !== null ? ['extensions'] : []),
    ...(s.osImage !== null ? [`OS image ${s.osImage.to}`] : []),
    ...(s.forced ? ['everything (forcefile)'] : []),
  ];
  return parts.length === 0 ? 'nothing' : parts.join('; ');
}

export function buildUpdateRecord(input: {
  readonly node: string;
  readonly pool: string;
  readonly daemon: DaemonUpdateRecord;
  /** The stamps on the old and the new rendered config; undefined when one has none. */
  readonly from: readonly SourceStamp[] | undefined;
  readonly to: readonly SourceStamp[] | undefined;
  readonly plan: PlanSummary | undefined;
}): NodeUpdateRecord {
  const changes: ConfigChange[] =
    input.from === undefined || input.to === undefined ? [] : configChanges(input.from, input.to);
  return {
    node: input.node,
    pool: input.pool,
    ...input.daemon,
    changes,
    diff: diffLine(input.plan),
  };
}

const key = (r: DaemonUpdateRecord) => `${r.to}\0${r.doneAt}`;

/** The history with the daemon's records it lacks, in time order, the oldest dropped past the cap. */
export function missingRecords(
  history: readonly NodeUpdateRecord[],
  daemon: readonly DaemonUpdateRecord[],
): DaemonUpdateRecord[] {
  const have = new Set(history.map(key));
  return daemon.filter((r) => !have.has(key(r)));
}

export function mergeHistory(
  history: readonly NodeUpdateRecord[],
  added: readonly NodeUpdateRecord[],
): NodeUpdateRecord[] {
  const have = new Set(history.map(key));
  const all = [...history, ...added.filter((r) => !have.has(key(r)))].sort((a, b) =>
    a.doneAt < b.doneAt ? -1 : a.doneAt > b.doneAt ? 1 : 0,
  );
  return all.slice(Math.max(0, all.length - MaxHistoryRecords));
}

/** What the node did, in words: `drained, rebooted (Reboot)`, `no drain, no reboot (None)`. */
export function actionsText(r: DaemonUpdateRecord): string {
  return `${r.drained ? 'drained' : 'no drain'}, ${r.rebooted ? 'rebooted' : 'no reboot'} (${r.actions.join(', ') || 'None'})`;
}

/** `50-worker-ssh changed by alice at …; 60-x removed by …`, or why none is known. */
export function changesText(changes: readonly ConfigChange[]): string {
  if (changes.length === 0)
    return 'no MachineConfig changed (a re-render, or configs rendered before the audit)';
  return changes.map((c) => `${c.name} ${c.change} ${changeStampText(c.changed)}`).join('; ');
}

/** Short, for a table: `50-x changed by alice, 60-y removed by admin`. */
export function changeCause(changes: readonly ConfigChange[]): string {
  return changes
    .map((c) => {
      const who =
        c.changed === undefined
          ? ''
          : c.changed.source === 'admission'
            ? ` by ${c.changed.by}`
            : ` by client ${c.changed.by}`;
      return `${c.name} ${c.change}${who}`;
    })
    .join(', ');
}

/** The event the node controller writes on the Node for one update. */
export function updateEventMessage(r: NodeUpdateRecord): string {
  return `${r.from} -> ${r.to}: ${actionsText(r)}; why: ${changesText(r.changes)}; diff: ${r.diff}`;
}

function isDaemonRecord(r: unknown): r is DaemonUpdateRecord {
  if (typeof r !== 'object' || r === null) return false;
  const o = r as Record<string, unknown>;
  return (
    ['from', 'to', 'startedAt', 'doneAt'].every((k) => typeof o[k] === 'string') &&
    Array.isArray(o['actions']) &&
    (o['actions'] as unknown[]).every((a) => typeof a === 'string') &&
    typeof o['drained'] === 'boolean' &&
    typeof o['rebooted'] === 'boolean'
  );
}

/**
 * The records on a Node's `lastUpdates` annotation; what does not parse (anyone who may patch the
 * Node can write it) is left out, at most MaxDaemonRecords are read.
 */
export function readDaemonRecords(text: string | undefined): DaemonUpdateRecord[] {
  if (text === undefined || text === '') return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter(isDaemonRecord).slice(-MaxDaemonRecords) : [];
  } catch {
    return [];
  }
}

/**
 * The median time a recorded update took (start to Done), among those that rebooted or not as
 * `rebooted` says; undefined when none did.
 */
export function medianUpdateMs(
  records: readonly DaemonUpdateRecord[],
  rebooted: boolean,
): { readonly ms: number; readonly count: number } | undefined {
  const took = records
    .filter((r) => r.rebooted === rebooted)
    .map((r) => Date.parse(r.doneAt) - Date.parse(r.startedAt))
    .filter((ms) => Number.isFinite(ms) && ms >= 0)
    .sort((a, b) => a - b);
  if (took.length === 0) return undefined;
  const mid = Math.floor(took.length / 2);
  const ms =
    took.length % 2 === 1 ? (took[mid] ?? 0) : ((took[mid - 1] ?? 0) + (took[mid] ?? 0)) / 2;
  return { ms, count: took.length };
}

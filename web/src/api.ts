/**
 * The page's view of the dashboard API: the snapshot stream (server-sent events, reconnected by the
 * browser) and the diff endpoint. The types are the server's own (src/dashboard), so both sides
 * agree on every field.
 */
import type { DashboardSnapshot } from '../../src/dashboard/dashboard-snapshot.js';
import type { DiffAnswerBody } from '../../src/dashboard/diff-plan.js';

export type { DashboardSnapshot, DiffAnswerBody };
export type { DiffPlan } from '../../src/dashboard/diff-plan.js';
export type {
  PoolView,
  NodeView,
  EventView,
  ConditionView,
} from '../../src/dashboard/dashboard-snapshot.js';
export type { FileDiff, UnitDiff, FieldDiff } from '../../src/dashboard/config-diff.js';
export type { DiffRow } from '../../src/dashboard/line-diff.js';

export type Connection = 'connecting' | 'live' | 'reconnecting';

/** Opens the stream; returns a function that closes it. */
export function watchSnapshots(
  onSnapshot: (s: DashboardSnapshot) => void,
  onConnection: (c: Connection) => void,
): () => void {
  const source = new EventSource('api/stream');
  source.addEventListener('snapshot', (e) => {
    onConnection('live');
    onSnapshot(JSON.parse((e as MessageEvent<string>).data) as DashboardSnapshot);
  });
  source.onerror = () => {
    onConnection('reconnecting');
  };
  return () => {
    source.close();
  };
}

export type DiffAnswer = { ok: true; diff: DiffAnswerBody } | { ok: false; error: string };

export async function fetchDiff(
  from: string,
  to: string,
  signal: AbortSignal,
): Promise<DiffAnswer> {
  const q = new URLSearchParams({ from, to });
  const res = await fetch(`api/diff?${q.toString()}`, { signal });
  const body = (await res.json()) as DiffAnswerBody | { error: string };
  return 'error' in body ? { ok: false, error: body.error } : { ok: true, diff: body };
}

/**
 * The page's view of the dashboard API: the snapshot stream (server-sent events, reconnected by the
 * browser) and the diff endpoint. The types are the server's own (src/dashboard), so both sides
 * agree on every field.
 */
import type { DashboardSnapshot } from '../../src/dashboard/dashboard-snapshot.js';
import type { DiffAnswerBody } from '../../src/dashboard/diff-plan.js';

export type { DashboardSnapshot, DiffAnswerBody };
export type { DiffPlan } from '../../src/dashboard/diff-plan.js';
export type { PoolView, NodeView } from '../../src/dashboard/dashboard-snapshot.js';
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

export type { NodeDetail, ConfigOsView } from '../../src/dashboard/node-detail.js';
export type { EventPage } from '../../src/dashboard/event-query.js';
export type { ClusterView } from '../../src/dashboard/cluster-view.js';
export type { RenderedConfigView } from '../../src/dashboard/dashboard-snapshot.js';

/**
 * The user's token for actions: kept in this tab's sessionStorage only (gone with the tab), sent
 * only to the dashboard, which passes it to the API server as the user's credentials.
 */
const TokenKey = 'mco-dashboard-token';

export function savedToken(): string {
  try {
    return sessionStorage.getItem(TokenKey) ?? '';
  } catch {
    return '';
  }
}

export function saveToken(token: string): void {
  try {
    if (token === '') sessionStorage.removeItem(TokenKey);
    else sessionStorage.setItem(TokenKey, token);
  } catch {
    // storage disabled: the token lives only in the page's state
  }
}

export function authHeaders(token: string): Record<string, string> {
  return token === '' ? {} : { Authorization: `Bearer ${token}` };
}

export type Answer<T> = { ok: true; value: T } | { ok: false; code: number; error: string };

export async function answerOf<T>(res: Response): Promise<Answer<T>> {
  let body: T | { error: string };
  try {
    body = (await res.json()) as T | { error: string };
  } catch {
    // a cut connection or a body that is not JSON: never taken for the answer
    return { ok: false, code: res.status, error: res.statusText || 'the answer was cut off' };
  }
  if (res.ok) return { ok: true, value: body as T };
  const error =
    typeof body === 'object' && body !== null && 'error' in body ? body.error : res.statusText;
  return { ok: false, code: res.status, error };
}

export async function getJson<T>(
  path: string,
  token: string,
  signal?: AbortSignal,
): Promise<Answer<T>> {
  const res = await fetch(path, {
    headers: authHeaders(token),
    ...(signal === undefined ? {} : { signal }),
  });
  return answerOf<T>(res);
}

export interface PoolActionResult {
  readonly pool: string;
  readonly paused: boolean;
  readonly maxUnavailable: string;
}

export async function poolAction(
  pool: string,
  action: 'pause' | 'resume' | 'maxUnavailable',
  token: string,
  body: unknown = {},
): Promise<Answer<PoolActionResult>> {
  const res = await fetch(`api/pools/${encodeURIComponent(pool)}/${action}`, {
    method: 'POST',
    headers: { ...authHeaders(token), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return answerOf<PoolActionResult>(res);
}

/**
 * Follows a node's daemon log: calls `onLines` with the last lines and then each new batch, until
 * the signal aborts; resolves with an error text if the server refused.
 */
export async function followLog(
  node: string,
  token: string,
  signal: AbortSignal,
  onLines: (lines: readonly string[]) => void,
): Promise<string | undefined> {
  const res = await fetch(`api/nodes/${encodeURIComponent(node)}/log`, {
    headers: authHeaders(token),
    signal,
  });
  if (!res.ok || res.body === null) {
    const a = await answerOf<unknown>(res);
    return a.ok ? 'no log' : `${a.code}: ${a.error}`;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return undefined;
    const text = rest + value;
    const cut = text.lastIndexOf('\n');
    if (cut < 0) {
      rest = text;
      continue;
    }
    rest = text.slice(cut + 1);
    onLines(text.slice(0, cut).split('\n'));
  }
}

export async function applyForcefile(
  node: string,
  token: string,
): Promise<Answer<{ node: string; path: string }>> {
  const res = await fetch(`api/nodes/${encodeURIComponent(node)}/forcefile`, {
    method: 'POST',
    headers: authHeaders(token),
  });
  return answerOf<{ node: string; path: string }>(res);
}

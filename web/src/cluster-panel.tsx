/**
 * The cluster's release: the version, the release in progress, the machine-config operator's
 * Progressing and Degraded messages, and which pools gate the release (asked for again on each
 * snapshot, at most every 2 s).
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, type ClusterView, type DashboardSnapshot } from './api.js';

export function ClusterPanel({
  snapshot,
  token,
}: {
  snapshot: DashboardSnapshot;
  token: string;
}): JSX.Element {
  const [view, setView] = useState<{ value?: ClusterView; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const t = setTimeout(() => {
      setTick((n) => n + 1);
    }, 2000);
    return () => {
      clearTimeout(t);
    };
  }, [snapshot]);
  useEffect(() => {
    const abort = new AbortController();
    getJson<ClusterView>('api/cluster', token, abort.signal).then(
      (a) => {
        setView(a.ok ? { value: a.value } : { error: `${a.code}: ${a.error}` });
      },
      (e: unknown) => {
        if (!abort.signal.aborted) setView({ error: String(e) });
      },
    );
    return () => {
      abort.abort();
    };
  }, [tick, token]);
  const v = view.value;
  if (view.error !== undefined) return <p class="error">{view.error}</p>;
  if (v === undefined) return <p class="empty">Loading…</p>;
  const progressing = v.operatorConditions.find((c) => c.type === 'Progressing');
  const degraded = v.operatorConditions.find((c) => c.type === 'Degraded');
  return (
    <div class="card cluster" data-testid="cluster">
      <dl class="configs">
        <dt>version</dt>
        <dd data-testid="cluster-version">{v.version || '—'}</dd>
        <dt>release in progress</dt>
        <dd data-testid="cluster-in-progress" class="wrap">
          {v.inProgress === undefined
            ? 'none'
            : `${v.inProgress.version} (${v.inProgress.image}) since ${v.inProgress.startedTime}`}
        </dd>
        <dt>machine-config</dt>
        <dd class="wrap">
          {v.operatorVersion || '—'}
          {progressing?.status === 'True' ? ` · Progressing: ${progressing.message}` : ''}
          {degraded?.status === 'True' ? ` · Degraded: ${degraded.message}` : ''}
        </dd>
        <dt>gating pools</dt>
        <dd data-testid="cluster-gating" class="wrap">
          {v.gating.length === 0 ? 'none' : v.gating.map((g) => `${g.pool} (${g.why})`).join('; ')}
        </dd>
      </dl>
      {v.notes.map((n) => (
        <p class="meta wrap" key={n}>
          {n}
        </p>
      ))}
    </div>
  );
}

/**
 * Events, newest first, filtered by type, pool and node, one page at a time (the server pages:
 * api/events). The page shown is asked for again whenever the snapshot changes.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, type DashboardSnapshot, type EventPage } from './api.js';

export function Events({
  snapshot,
  fixedNode,
}: {
  snapshot: DashboardSnapshot;
  /** On a node's page: only that node's events, without the node and pool pickers. */
  fixedNode?: string;
}): JSX.Element {
  const [type, setType] = useState('');
  const [pool, setPool] = useState('');
  const [node, setNode] = useState('');
  const [page, setPage] = useState(1);
  const [answer, setAnswer] = useState<{ value?: EventPage; error?: string }>({});
  const stamp = snapshot.events[0]?.time ?? '';
  const count = snapshot.events.length;
  const params = new URLSearchParams({
    type,
    pool: fixedNode === undefined ? pool : '',
    node: fixedNode ?? node,
    page: String(page),
  });
  const query = params.toString();
  useEffect(() => {
    const abort = new AbortController();
    getJson<EventPage>(`api/events?${query}`, '', abort.signal).then(
      (a) => {
        setAnswer(a.ok ? { value: a.value } : { error: a.error });
      },
      (e: unknown) => {
        if (!abort.signal.aborted) setAnswer({ error: String(e) });
      },
    );
    return () => {
      abort.abort();
    };
  }, [query, stamp, count]);
  const pick = (set: (v: string) => void) => (e: Event) => {
    set((e.currentTarget as HTMLSelectElement).value);
    setPage(1);
  };
  const p = answer.value;
  return (
    <div class="events-panel">
      <div class="filters">
        <label>
          type{' '}
          <select value={type} onChange={pick(setType)} data-testid="events-type">
            <option value="">all</option>
            <option>Normal</option>
            <option>Warning</option>
          </select>
        </label>
        {fixedNode === undefined ? (
          <>
            <label>
              pool{' '}
              <select value={pool} onChange={pick(setPool)} data-testid="events-pool">
                <option value="">all</option>
                {snapshot.pools.map((x) => (
                  <option key={x.name}>{x.name}</option>
                ))}
              </select>
            </label>
            <label>
              node{' '}
              <select value={node} onChange={pick(setNode)} data-testid="events-node">
                <option value="">all</option>
                {snapshot.nodes.map((x) => (
                  <option key={x.name}>{x.name}</option>
                ))}
              </select>
            </label>
          </>
        ) : null}
        {p === undefined ? null : (
          <span class="pager">
            <button
              type="button"
              disabled={p.page <= 1}
              onClick={() => {
                setPage(p.page - 1);
              }}
            >
              newer
            </button>
            <span data-testid="events-page">
              page {p.page} of {p.pages} · {p.total} events
            </span>
            <button
              type="button"
              disabled={p.page >= p.pages}
              data-testid="events-older"
              onClick={() => {
                setPage(p.page + 1);
              }}
            >
              older
            </button>
          </span>
        )}
      </div>
      {answer.error !== undefined ? <p class="error">{answer.error}</p> : null}
      {p === undefined ? null : p.events.length === 0 ? (
        <p class="empty">No events.</p>
      ) : (
        <div class="scroll-x">
          <table class="events" data-testid="events">
            <thead>
              <tr>
                <th>time</th>
                <th>type</th>
                <th>reason</th>
                <th>object</th>
                <th>message</th>
              </tr>
            </thead>
            <tbody>
              {p.events.map((e, i) => (
                <tr
                  key={`${e.time}-${e.object}-${e.reason}-${i}`}
                  class={e.type === 'Warning' ? 'warning' : ''}
                >
                  <td class="mono nowrap">{e.time.replace('T', ' ').replace('Z', '')}</td>
                  <td>{e.type}</td>
                  <td>{e.reason}</td>
                  <td class="wrap">{e.object}</td>
                  <td class="wrap">
                    {e.message}
                    {e.count > 1 ? <span class="tag">×{e.count}</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

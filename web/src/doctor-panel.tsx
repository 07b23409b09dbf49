/**
 * A pool card's doctor (docs/rollouts.md "mco doctor"): on demand, every node not Done at the
 * pool's target with its phase, since when, what blocks it and the fix, as `mco doctor mcp/NAME`
 * prints them (src/dashboard/doctor-routes.ts), read with the user's token when one is given.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { getJson } from './api.js';
import type { DoctorReport } from '../../src/runtime/rollout-doctor.js';

type Shown =
  | { readonly kind: 'none' }
  | { readonly kind: 'loading' }
  | { readonly kind: 'error'; readonly text: string }
  | { readonly kind: 'report'; readonly report: DoctorReport };

function Report({ name, report }: { name: string; report: DoctorReport }): JSX.Element {
  const pool = report.pools.find((p) => p.pool === name);
  if (pool === undefined) return <p class="meta">no such pool</p>;
  return (
    <div data-testid={`doctor-report-${name}`}>
      <p class={pool.stuck ? 'rollout-held' : 'meta'} data-testid={`doctor-summary-${name}`}>
        {pool.updated} of {pool.total} nodes on <span class="mono">{pool.target || '—'}</span>;{' '}
        {pool.stuck ? 'stuck' : 'nothing is stuck'}
      </p>
      <ul class="doctor-nodes">
        {pool.nodes.map((n) => (
          <li key={n.node} data-testid={`doctor-node-${n.node}`}>
            <strong>{n.node}</strong> {n.phase}
            {n.since === undefined ? null : <span class="meta"> since {n.since}</span>}
            {n.blockers.length === 0 ? <span class="meta">: nothing in its way</span> : null}
            {n.blockers.map((b) => (
              <div
                key={`${b.kind}/${b.object}`}
                class="wrap"
                data-testid={`doctor-blocker-${n.node}`}
              >
                blocked by <span class="mono">{b.object}</span> ({b.kind}): {b.why}
                <div class="mono">fix: {b.fix}</div>
              </div>
            ))}
          </li>
        ))}
      </ul>
      {report.notes.map((note) => (
        <p key={note} class="meta">
          note: {note}
        </p>
      ))}
    </div>
  );
}

export function DoctorPanel({ name, token }: { name: string; token: string }): JSX.Element {
  const [shown, setShown] = useState<Shown>({ kind: 'none' });
  const look = async () => {
    setShown({ kind: 'loading' });
    try {
      const a = await getJson<DoctorReport>(`api/pools/${encodeURIComponent(name)}/doctor`, token);
      setShown(
        a.ok
          ? { kind: 'report', report: a.value }
          : { kind: 'error', text: `${a.code}: ${a.error}` },
      );
    } catch (e) {
      setShown({ kind: 'error', text: String(e) });
    }
  };
  return (
    <div class="doctor" data-testid={`doctor-${name}`}>
      <button
        type="button"
        disabled={shown.kind === 'loading'}
        data-testid={`doctor-look-${name}`}
        title="mco doctor: what keeps each node from the pool's config, and the fix"
        onClick={() => void look()}
      >
        Why is it stuck?
      </button>
      {shown.kind === 'error' ? <p class="error">{shown.text}</p> : null}
      {shown.kind === 'report' ? <Report name={name} report={shown.report} /> : null}
    </div>
  );
}

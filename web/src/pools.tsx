/** Pool cards: state, a progress bar of updated/total, the counts, configs and conditions. */
import type { JSX } from 'preact';
import type { PoolView } from './api.js';
import { PoolActions } from './pool-actions.js';
import { DoctorPanel } from './doctor-panel.js';
import { RolloutPanel } from './rollout-panel.js';

const OutcomeLabel = { Done: 'Updated', Progressing: 'Updating', Degraded: 'Degraded' } as const;

function ProgressBar({ pool }: { pool: PoolView }) {
  return (
    <div
      class={`progress progress-${pool.outcome.toLowerCase()}`}
      role="progressbar"
      aria-label={`${pool.name} rollout`}
      aria-valuemin={0}
      aria-valuemax={pool.machineCount}
      aria-valuenow={pool.updatedMachineCount}
      data-testid={`progress-${pool.name}`}
    >
      <div class="progress-fill" style={{ width: `${pool.progressPercent}%` }} />
      <span class="progress-text">
        {pool.updatedMachineCount}/{pool.machineCount} updated · {pool.progressPercent}%
      </span>
    </div>
  );
}

function Count({ label, value, warn }: { label: string; value: number; warn?: boolean }) {
  return (
    <div class={`count${warn === true && value > 0 ? ' count-warn' : ''}`}>
      <span class="count-value">{value}</span>
      <span class="count-label">{label}</span>
    </div>
  );
}

/** Updated and Degraded as computed; a paused pool that is not done is Paused, not Updating (kubectl's UPDATING is False then). */
function stateLabel(pool: PoolView): string {
  if (pool.paused && pool.outcome === 'Progressing') return 'Paused';
  return OutcomeLabel[pool.outcome];
}

/** The expected end as the page's clock reads it: `21:40 UTC (in about 3 min)`, or the note. */
function etaText(eta: string, now: number): string {
  const at = Date.parse(eta);
  if (!Number.isFinite(at)) return eta;
  const minutes = Math.round((at - now) / 60_000);
  const when = eta.replace('T', ' ').replace(/:\d\dZ$/, ' UTC');
  if (at < now) return `${when} (overdue)`;
  if (minutes < 1) return `${when} (in under a minute)`;
  return `${when} (in about ${minutes} min)`;
}

function PoolCard({ pool, token }: { pool: PoolView; token: string }) {
  return (
    <article class="card pool" data-testid={`pool-${pool.name}`}>
      <header class="pool-head">
        <h3>{pool.name}</h3>
        <span
          class={`badge badge-${pool.outcome.toLowerCase()}`}
          data-testid={`pool-state-${pool.name}`}
        >
          {stateLabel(pool)}
        </span>
        {pool.paused && pool.outcome !== 'Progressing' ? (
          <span class="badge badge-paused" data-testid={`pool-paused-${pool.name}`}>
            Paused
          </span>
        ) : null}
      </header>
      <ProgressBar pool={pool} />
      <div class="counts">
        <Count label="machines" value={pool.machineCount} />
        <Count label="updated" value={pool.updatedMachineCount} />
        <Count label="ready" value={pool.readyMachineCount} />
        <Count label="unavailable" value={pool.unavailableMachineCount} warn />
        <Count label="degraded" value={pool.degradedMachineCount} warn />
      </div>
      <dl class="configs">
        <dt>target</dt>
        <dd class="mono">{pool.target || '—'}</dd>
        <dt>current</dt>
        <dd class="mono">{pool.current || '—'}</dd>
        <dt>maxUnavailable</dt>
        <dd data-testid={`max-${pool.name}`}>{pool.maxUnavailable}</dd>
        {pool.eta === '' ? null : (
          <>
            <dt>ETA</dt>
            <dd data-testid={`eta-${pool.name}`}>{etaText(pool.eta, Date.now())}</dd>
          </>
        )}
      </dl>
      <p class="message">{pool.message}</p>
      <PoolActions pool={pool} token={token} />
      <RolloutPanel pool={pool} token={token} />
      <DoctorPanel name={pool.name} token={token} />
      <details>
        <summary>conditions</summary>
        <table class="conditions">
          <tbody>
            {pool.conditions.map((c) => (
              <tr key={c.type} class={`cond-${c.status.toLowerCase()}`}>
                <td>{c.type}</td>
                <td>{c.status}</td>
                <td>{c.reason}</td>
                <td class="wrap">{c.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </article>
  );
}

export function Pools({
  pools,
  token,
}: {
  pools: readonly PoolView[];
  token: string;
}): JSX.Element {
  if (pools.length === 0) return <p class="empty">No MachineConfigPools yet.</p>;
  return (
    <div class="pools">
      {pools.map((p) => (
        <PoolCard key={p.name} pool={p} token={token} />
      ))}
    </div>
  );
}

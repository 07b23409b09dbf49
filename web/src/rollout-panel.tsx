/**
 * A pool card's rollout section (docs/rollouts.md): the policy (windows with the next opening,
 * gates, canary and its state, order, automatic revert), whether the node controller holds the
 * pool and why, a revert's stop, a rollback, and the revisions as `mco rollout history` lists them;
 * with the Resume (`mco rollout resume`) and Undo (`mco rollout undo [--to-revision N]`) buttons,
 * sent with the user's token. Everything shown is the server's view; this lays it out.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { PoolView } from './api.js';
import {
  rolloutAction,
  type OpeningView,
  type PoolRolloutView,
  type RolloutActionAnswer,
} from './rollout-api.js';
import './rollout.css';

const CanaryStateText = {
  updating: 'updating the canary',
  waiting: 'waiting for resume',
  released: 'released',
  complete: 'complete',
} as const;

/** `2026-12-05T01:00:00Z` as `2026-12-05 01:00 UTC`. */
function when(rfc3339: string): string {
  return rfc3339.replace('T', ' ').replace(/:\d\dZ$/, ' UTC');
}

/** The window line for now: open until …, or opens at …, by the page's own clock. */
function windowState(openings: readonly OpeningView[], now: number): string {
  const next = openings.find((o) => Date.parse(o.end) > now);
  if (next === undefined) return 'no window opens in the next week';
  return Date.parse(next.start) <= now
    ? `open until ${when(next.end)}`
    : `next opens ${when(next.start)} (until ${when(next.end)})`;
}

function answerText(a: RolloutActionAnswer): string {
  if (a.action !== 'undo') {
    const done = a.action === 'resume' ? 'resumed' : 'approved';
    return a.changed ? `${done} for ${a.target}` : `already ${done} for ${a.target}`;
  }
  return a.cleared
    ? `back on the rendered target, revision ${a.revision} (${a.to})`
    : `rolled back to revision ${a.revision} (${a.to})`;
}

function Policy({ name, r }: { name: string; r: PoolRolloutView }): JSX.Element {
  if (r.policyError !== '')
    return (
      <p class="error" data-testid={`rollout-policy-error-${name}`}>
        invalid rollout policy: {r.policyError}
      </p>
    );
  const c = r.canary;
  return (
    <dl class="configs rollout-policy" data-testid={`rollout-policy-${name}`}>
      <dt>windows</dt>
      <dd data-testid={`rollout-windows-${name}`}>
        {r.windows.length === 0 ? (
          'any time'
        ) : (
          <>
            {r.windows.map((w) => (
              <div key={w}>{w}</div>
            ))}
            <div class="meta" data-testid={`rollout-next-window-${name}`}>
              {windowState(r.openings, Date.now())}
            </div>
          </>
        )}
      </dd>
      <dt>gates</dt>
      <dd data-testid={`rollout-gates-${name}`}>
        {r.gates.length === 0
          ? 'none'
          : r.gates.map((g) => (
              <div key={g} class="wrap">
                {g}
              </div>
            ))}
      </dd>
      <dt>canary</dt>
      <dd data-testid={`rollout-canary-${name}`}>
        {c === undefined
          ? 'none'
          : `${c.size}: ${c.updated}/${c.nodes} updated, ${CanaryStateText[c.state]}` +
            (c.autoResumeAfter === '' ? '' : ` (resumes by itself after ${c.autoResumeAfter})`)}
      </dd>
      <dt>order</dt>
      <dd>{r.priorityLabel === '' ? 'zone, then age' : `label ${r.priorityLabel}, lower first`}</dd>
      <dt>auto revert</dt>
      <dd data-testid={`rollout-autorevert-${name}`}>{r.autoRevert ? 'yes' : 'no'}</dd>
    </dl>
  );
}

function Revisions({ name, r }: { name: string; r: PoolRolloutView }): JSX.Element {
  return (
    <div class="scroll-x">
      <table class="revisions" data-testid={`rollout-revisions-${name}`}>
        <thead>
          <tr>
            <th>revision</th>
            <th>rendered config</th>
            <th>nodes</th>
            <th>notes</th>
            <th>created</th>
          </tr>
        </thead>
        <tbody>
          {r.revisions.map((v) => (
            <tr key={v.name} data-testid={`rollout-revision-${name}-${v.revision}`}>
              <td>{v.revision}</td>
              <td class="mono">{v.name}</td>
              <td>{v.nodes}</td>
              <td>{v.notes.join(', ')}</td>
              <td class="nowrap">{v.created.replace('T', ' ').replace('Z', '')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Why the pool moves or not: the node controller's hold, a revert's stop, a rollback. */
function State({ name, r }: { name: string; r: PoolRolloutView }): JSX.Element {
  const held = r.held;
  return (
    <>
      {held === undefined ? null : (
        <p
          class={held.status === 'True' ? 'rollout-held' : 'meta'}
          data-testid={`rollout-held-${name}`}
        >
          {held.status === 'True' ? 'held: ' : 'moving: '}
          {held.message}
        </p>
      )}
      {r.stop === undefined ? null : (
        <p class="error" data-testid={`rollout-stop-${name}`}>
          stopped: {r.stop.node} went back to {r.stop.revertTo}; resume goes on with {r.stop.target}
        </p>
      )}
      {r.rollback === undefined ? null : (
        <p data-testid={`rollout-rollback-${name}`}>
          rolled back: rolls out <span class="mono">{r.rollback.to}</span> instead of{' '}
          <span class="mono">{r.rollback.from}</span>
        </p>
      )}
    </>
  );
}

export function RolloutPanel({ pool, token }: { pool: PoolView; token: string }): JSX.Element {
  const r = pool.rollout;
  const name = pool.name;
  const [revision, setRevision] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const act = async (verb: 'resume' | 'approve' | 'undo') => {
    setBusy(true);
    try {
      const a = await rolloutAction(
        name,
        verb,
        token,
        verb === 'undo' && revision !== '' ? Number(revision) : undefined,
      );
      setResult(
        a.ok
          ? { ok: true, text: answerText(a.value) }
          : { ok: false, text: `${a.code}: ${a.error}` },
      );
    } catch (e) {
      setResult({ ok: false, text: String(e) });
    } finally {
      setBusy(false);
    }
  };
  const held = r.held;
  const active = r.hasPolicy || r.stop !== undefined || r.rollback !== undefined;
  const disabled = busy || token === '';
  return (
    <details class="rollout" open={active} data-testid={`rollout-${name}`}>
      <summary>
        rollout
        {held?.status === 'True' ? (
          <span class="badge badge-held" data-testid={`rollout-held-reason-${name}`}>
            {held.reason}
          </span>
        ) : null}
      </summary>
      <State name={name} r={r} />
      {r.hasPolicy ? (
        <Policy name={name} r={r} />
      ) : (
        <p class="meta">no rollout policy: upstream's rollout (maxUnavailable only)</p>
      )}
      <Revisions name={name} r={r} />
      <div class="actions">
        {r.hasPolicy ? (
          <button
            type="button"
            disabled={disabled || !r.canResume}
            data-testid={`rollout-resume-${name}`}
            title="mco rollout resume: release the canary, lift a revert's stop"
            onClick={() => void act('resume')}
          >
            Resume rollout
          </button>
        ) : null}
        {r.canApprove ? (
          <button
            type="button"
            disabled={disabled}
            data-testid={`rollout-approve-${name}`}
            title="mco rollout approve: let the config the policy holds for an approval roll out (read the hold's preview first)"
            onClick={() => void act('approve')}
          >
            Approve rollout
          </button>
        ) : null}
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            void act('undo');
          }}
        >
          <label>
            undo to{' '}
            <select
              value={revision}
              data-testid={`rollout-undo-revision-${name}`}
              onChange={(e) => {
                setRevision(e.currentTarget.value);
              }}
            >
              <option value="">the previous revision</option>
              {r.revisions.map((v) => (
                <option key={v.name} value={String(v.revision)}>
                  {v.revision} · {v.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={disabled} data-testid={`rollout-undo-${name}`}>
            Undo
          </button>
        </form>
        {result === undefined ? null : (
          <p class={result.ok ? 'action-ok' : 'error'} data-testid={`rollout-result-${name}`}>
            {result.text}
          </p>
        )}
      </div>
    </details>
  );
}

/**
 * The diff between two rendered MachineConfigs of a pool: first what a node on the left config does
 * to reach the right one (the daemon's plan: drain, reboot, the post-config actions, or why it
 * cannot), then OS fields, then files and units side by side. Until the user picks configs it follows the pool: the config before the target on the
 * left, the target on the right, so a new MachineConfig shows up here as soon as it is rendered.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  fetchDiff,
  type DiffAnswerBody,
  type DiffPlan,
  type DiffRow,
  type PoolView,
  type RenderedConfigView,
} from './api.js';

interface Choice {
  readonly pool: string;
  readonly from: string;
  readonly to: string;
}

/** The config before the target (or the last two rendered ones). */
function defaultChoice(pool: PoolView): Choice {
  const list = pool.renderedConfigs;
  const to = pool.target || (list[list.length - 1] ?? '');
  const at = list.indexOf(to);
  const from = at > 0 ? (list[at - 1] ?? to) : to;
  return { pool: pool.name, from, to };
}

/** `rendered-worker-1a2b · 2026-12-02 04:05 · current, target` */
function configLabel(c: RenderedConfigView): string {
  const marks = [c.current ? 'current' : '', c.target ? 'target' : ''].filter((m) => m !== '');
  const when = c.created
    .replace('T', ' ')
    .replace(/:\d\dZ$/, '')
    .replace('Z', '');
  return `${c.name}${when === '' ? '' : ` · ${when}`}${marks.length === 0 ? '' : ` · ${marks.join(', ')}`}`;
}

function Rows({ rows }: { rows: readonly DiffRow[] }) {
  return (
    <table class="sbs">
      <tbody>
        {rows.map((r, i) => (
          <tr key={i} class={`row-${r.kind}`}>
            <td class="left mono wrap">{r.left ?? ''}</td>
            <td class="right mono wrap">{r.right ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');

/** What a node on the left config does to reach the right one. */
function PlanBox({ plan }: { plan: DiffPlan }) {
  const { outcome, policies } = plan;
  return (
    <section class="plan" data-testid="diff-plan">
      <h4>What a node does for this change</h4>
      {outcome.kind === 'irreconcilable' ? (
        <p class="error" data-testid="plan-irreconcilable">
          not reconcilable: {outcome.message}
        </p>
      ) : (
        <>
          <p data-testid="plan-effect">The node {outcome.effect}.</p>
          <table class="fields">
            <tbody>
              <tr>
                <th>drain</th>
                <td data-testid="plan-drain">{yesNo(outcome.summary.drain)}</td>
              </tr>
              <tr>
                <th>reboot</th>
                <td data-testid="plan-reboot">{yesNo(outcome.summary.reboot)}</td>
              </tr>
              <tr>
                <th>actions</th>
                <td class="mono" data-testid="plan-actions">
                  {outcome.summary.actions.join(', ')}
                </td>
              </tr>
            </tbody>
          </table>
        </>
      )}
      {plan.forceFile === undefined ? null : (
        <p class="error" data-testid="plan-forcefile">
          {plan.forceFile.nodes.join(', ')}:{' '}
          {plan.forceFile.outcome.kind === 'plan'
            ? `${plan.forceFile.reason}; drain ${yesNo(plan.forceFile.outcome.summary.drain)}, reboot ${yesNo(plan.forceFile.outcome.summary.reboot)} (${plan.forceFile.outcome.summary.actions.join(', ')})`
            : `${plan.forceFile.reason}; not reconcilable: ${plan.forceFile.outcome.message}`}
        </p>
      )}
      <p class="meta" data-testid="plan-policies">
        node disruption policies: {policies.note}
      </p>
    </section>
  );
}

function DiffBody({ diff }: { diff: DiffAnswerBody }) {
  const fields = diff.fields.filter((f) => f.changed);
  const nothing =
    fields.length === 0 &&
    diff.files.length === 0 &&
    diff.units.length === 0 &&
    diff.users.length === 0;
  return (
    <div data-testid="diff">
      <PlanBox plan={diff.plan} />
      {nothing ? <p class="empty">The two configs are the same.</p> : null}
      {fields.length > 0 ? (
        <table class="fields">
          <tbody>
            {fields.map((f) => (
              <tr key={f.field}>
                <th>{f.field}</th>
                <td class="left mono wrap">{f.from || '—'}</td>
                <td class="right mono wrap">{f.to || '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {diff.files.map((f) => (
        <section class="diff-entry" key={f.path} data-testid={`diff-file-${f.path}`}>
          <h4>
            <span class={`badge change-${f.change}`}>{f.change}</span>{' '}
            <span class="mono">{f.path}</span>
            <span class="meta">
              {f.from === undefined ? '' : `${f.from.mode} ${f.from.owner}`}
              {f.from !== undefined && f.to !== undefined ? ' → ' : ''}
              {f.to === undefined ? '' : `${f.to.mode} ${f.to.owner}`}
            </span>
          </h4>
          <Rows rows={f.rows} />
        </section>
      ))}
      {diff.units.map((u) => (
        <section class="diff-entry" key={u.name} data-testid={`diff-unit-${u.name}`}>
          <h4>
            <span class={`badge change-${u.change}`}>{u.change}</span>{' '}
            <span class="mono">{u.name}</span>
            <span class="meta">
              {u.from || '—'} → {u.to || '—'}
            </span>
          </h4>
          <Rows rows={u.rows} />
        </section>
      ))}
      {diff.users.map((u) => (
        <section class="diff-entry" key={u.name} data-testid={`diff-user-${u.name}`}>
          <h4>
            <span class={`badge change-${u.change}`}>{u.change}</span> user{' '}
            <span class="mono">{u.name}</span>
            <span class="meta">SSH keys and password</span>
          </h4>
          <Rows rows={u.rows} />
        </section>
      ))}
      <p class="meta">
        {diff.unchangedFiles.length} files and {diff.unchangedUnits.length} units unchanged
      </p>
    </div>
  );
}

export function DiffView({ pools }: { pools: readonly PoolView[] }): JSX.Element {
  const [picked, setPicked] = useState<Choice | undefined>(undefined);
  const [poolName, setPoolName] = useState<string | undefined>(undefined);
  const [answer, setAnswer] = useState<{ key: string; diff?: DiffAnswerBody; error?: string }>();
  const pool =
    pools.find((p) => p.name === (poolName ?? 'worker')) ??
    pools.find((p) => p.renderedConfigs.length > 0);
  const choice =
    picked !== undefined && picked.pool === pool?.name
      ? picked
      : pool === undefined
        ? undefined
        : defaultChoice(pool);
  const key = choice === undefined ? '' : `${choice.from}→${choice.to}`;

  useEffect(() => {
    if (choice === undefined || choice.from === '' || choice.to === '') return undefined;
    const abort = new AbortController();
    fetchDiff(choice.from, choice.to, abort.signal).then(
      (a) => {
        setAnswer(a.ok ? { key, diff: a.diff } : { key, error: a.error });
      },
      (e: unknown) => {
        if (!abort.signal.aborted) setAnswer({ key, error: String(e) });
      },
    );
    return () => {
      abort.abort();
    };
  }, [key]);

  if (pool === undefined || choice === undefined)
    return <p class="empty">No rendered configs yet.</p>;
  const select = (side: 'from' | 'to') => (e: Event) => {
    setPicked({ ...choice, [side]: (e.currentTarget as HTMLSelectElement).value });
  };
  return (
    <div class="diff-view">
      <div class="diff-controls">
        <label>
          pool{' '}
          <select
            value={pool.name}
            onChange={(e) => {
              setPoolName(e.currentTarget.value);
              setPicked(undefined);
            }}
          >
            {pools.map((p) => (
              <option key={p.name}>{p.name}</option>
            ))}
          </select>
        </label>
        <label>
          from{' '}
          <select value={choice.from} onChange={select('from')} data-testid="diff-from">
            {pool.renderedConfigList.map((c) => (
              <option key={c.name} value={c.name}>
                {configLabel(c)}
              </option>
            ))}
          </select>
        </label>
        <label>
          to{' '}
          <select value={choice.to} onChange={select('to')} data-testid="diff-to">
            {pool.renderedConfigList.map((c) => (
              <option key={c.name} value={c.name}>
                {configLabel(c)}
              </option>
            ))}
          </select>
        </label>
        {picked !== undefined ? (
          <button
            type="button"
            onClick={() => {
              setPicked(undefined);
            }}
          >
            follow the pool
          </button>
        ) : null}
      </div>
      {answer?.key !== key ? (
        <p class="empty">Loading…</p>
      ) : answer.error !== undefined ? (
        <p class="error">{answer.error}</p>
      ) : answer.diff !== undefined ? (
        <DiffBody diff={answer.diff} />
      ) : null}
    </div>
  );
}

/**
 * On-Cluster Layering: each MachineOSConfig (pool, push spec, the image the pool runs, its
 * Containerfile) and each MachineOSBuild (phase, rendered config, the pushed image by digest,
 * times); a build opened shows its five conditions and its log. Builds are no part of the snapshot
 * stream, so the panel asks again every few seconds, and an open build's log while it builds.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { BuildsView, MachineOSBuildView } from '../../src/dashboard/build-view.js';
import { getJson } from './api.js';

const PollMs = 3000;

function phaseBadge(phase: MachineOSBuildView['phase']): string {
  if (phase === 'Succeeded') return 'badge badge-done';
  if (phase === 'Failed' || phase === 'Interrupted') return 'badge badge-degraded';
  return 'badge badge-progressing';
}

const running = (phase: MachineOSBuildView['phase']): boolean =>
  phase === 'Pending' || phase === 'Prepared' || phase === 'Building';

type LogState = { text?: string; truncated?: boolean; error?: string };

async function fetchBuildLog(name: string, token: string, signal: AbortSignal): Promise<LogState> {
  const res = await fetch(`api/builds/${encodeURIComponent(name)}/log`, {
    headers: token === '' ? {} : { Authorization: `Bearer ${token}` },
    signal,
  });
  if (res.ok)
    return { text: await res.text(), truncated: res.headers.get('X-Log-Truncated') === 'true' };
  let error = res.statusText;
  try {
    error = ((await res.json()) as { error?: string }).error ?? error;
  } catch {
    // not JSON: the status text says enough
  }
  return { error: `${res.status}: ${error}` };
}

function BuildDetail({
  build,
  token,
  tick,
}: {
  build: MachineOSBuildView;
  token: string;
  tick: number;
}): JSX.Element {
  const [log, setLog] = useState<LogState>({});
  const live = running(build.phase);
  useEffect(() => {
    const abort = new AbortController();
    fetchBuildLog(build.name, token, abort.signal).then(setLog, (e: unknown) => {
      if (!abort.signal.aborted) setLog({ error: String(e) });
    });
    return () => {
      abort.abort();
    };
    // A finished build's log does not change: it is read again only while the build runs.
  }, [build.name, token, live ? tick : -1, build.phase]);
  return (
    <div class="build-detail" data-testid={`build-detail-${build.name}`}>
      <div class="scroll-x">
        <table class="conditions">
          <thead>
            <tr>
              <th>condition</th>
              <th>status</th>
              <th>reason</th>
              <th>message</th>
              <th>since</th>
            </tr>
          </thead>
          <tbody>
            {build.conditions.map((c) => (
              <tr key={c.type} class={c.status === 'True' ? 'cond-true' : ''}>
                <td>{c.type}</td>
                <td>{c.status}</td>
                <td>{c.reason}</td>
                <td class="wrap">{c.message}</td>
                <td class="nowrap">{c.lastTransitionTime}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="meta wrap">
        push spec <span class="mono">{build.pushSpec}</span>
        {log.truncated === true ? ' · the log is long: its end is shown' : ''}
      </p>
      {log.error !== undefined ? (
        <p class="error" data-testid="build-log-error">
          {log.error}
        </p>
      ) : (
        <pre class="log" data-testid="build-log">
          {log.text ?? 'Loading…'}
        </pre>
      )}
    </div>
  );
}

export function BuildsPanel({ token }: { token: string }): JSX.Element {
  const [view, setView] = useState<{ value?: BuildsView; error?: string }>({});
  const [tick, setTick] = useState(0);
  const [open, setOpen] = useState<string | undefined>(undefined);
  useEffect(() => {
    const t = setInterval(() => {
      setTick((n) => n + 1);
    }, PollMs);
    return () => {
      clearInterval(t);
    };
  }, []);
  useEffect(() => {
    const abort = new AbortController();
    getJson<BuildsView>('api/builds', token, abort.signal).then(
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
  if (v.configs.length === 0 && v.builds.length === 0 && v.notes.length === 0)
    return (
      <p class="empty" data-testid="builds-empty">
        No MachineOSConfig: every pool runs its plain OS image.
      </p>
    );
  const opened = v.builds.find((b) => b.name === open);
  return (
    <div data-testid="builds">
      {v.notes.map((n) => (
        <p class="error wrap" key={n}>
          {n}
        </p>
      ))}
      <div class="pools">
        {v.configs.map((c) => (
          <div class="card" key={c.name} data-testid={`mosc-${c.name}`}>
            <div class="pool-head">
              <h3>{c.name}</h3>
              <span class="meta">pool {c.pool}</span>
            </div>
            <dl class="configs">
              <dt>push spec</dt>
              <dd class="mono">{c.pushSpec}</dd>
              <dt>current image</dt>
              <dd class="mono" data-testid={`mosc-image-${c.name}`}>
                {c.currentImage || '— (no build has succeeded)'}
              </dd>
              <dt>current build</dt>
              <dd class="mono">{c.currentBuild || '—'}</dd>
            </dl>
            <details>
              <summary>Containerfile</summary>
              <pre class="log">{c.containerfile}</pre>
            </details>
          </div>
        ))}
      </div>
      {v.builds.length === 0 ? (
        <p class="empty">No MachineOSBuild yet.</p>
      ) : (
        <div class="scroll-x">
          <table class="builds">
            <thead>
              <tr>
                <th>build</th>
                <th>pool</th>
                <th>phase</th>
                <th>rendered config</th>
                <th>image</th>
                <th>started</th>
                <th>ended</th>
              </tr>
            </thead>
            <tbody>
              {v.builds.map((b) => (
                <tr key={b.name} data-testid={`build-${b.name}`}>
                  <td class="mono">
                    <button
                      type="button"
                      class="inline"
                      aria-expanded={open === b.name}
                      data-testid={`build-open-${b.name}`}
                      onClick={() => {
                        setOpen(open === b.name ? undefined : b.name);
                      }}
                    >
                      {b.name}
                    </button>
                    {b.current ? <span class="tag">current</span> : null}
                  </td>
                  <td>{b.pool}</td>
                  <td>
                    <span class={phaseBadge(b.phase)} data-testid={`build-phase-${b.name}`}>
                      {b.phase}
                    </span>
                  </td>
                  <td class="mono">{b.renderedConfig}</td>
                  <td class="mono wrap" data-testid={`build-image-${b.name}`}>
                    {b.image || '—'}
                  </td>
                  <td class="nowrap">{b.buildStart || '—'}</td>
                  <td class="nowrap">{b.buildEnd || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {opened === undefined ? null : <BuildDetail build={opened} token={token} tick={tick} />}
    </div>
  );
}

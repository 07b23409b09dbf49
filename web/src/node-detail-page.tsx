/**
 * One node: what its kubelet reports of the OS, its deployments (default, rollback, booted,
 * staged), the current and desired rendered configs' OS image and kernel arguments, its
 * MachineConfigNode conditions, and the last 200 lines of its daemon's log, followed live. The
 * detail is fetched again whenever the snapshot changes; the log stream stays open.
 */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  applyForcefile,
  followLog,
  getJson,
  type ConfigOsView,
  type DashboardSnapshot,
  type NodeDetail,
} from './api.js';
import { Events } from './events.js';

const MaxLines = 200;

function ConfigBox({ label, config }: { label: string; config: ConfigOsView }) {
  return (
    <div class="card config-box" data-testid={`config-${label}`}>
      <h4>
        {label} <span class="mono">{config.name || '—'}</span>
        {config.found || config.name === '' ? null : <span class="tag">not found</span>}
      </h4>
      <dl class="configs">
        <dt>osImageURL</dt>
        <dd class="mono wrap">{config.osImageURL || '—'}</dd>
        <dt>kernel arguments</dt>
        <dd class="mono wrap" data-testid={`kargs-${label}`}>
          {config.kernelArguments.join(' ') || '—'}
        </dd>
        <dt>kernel type</dt>
        <dd>{config.kernelType}</dd>
        <dt>extensions</dt>
        <dd class="mono wrap">{config.extensions.join(' ') || '—'}</dd>
        <dt>FIPS</dt>
        <dd>{config.fips ? 'yes' : 'no'}</dd>
      </dl>
    </div>
  );
}

function Deployments({ detail }: { detail: NodeDetail }) {
  const d = detail.deployments;
  if (!d.ok)
    return (
      <p class="meta" data-testid="deployments-unavailable">
        {d.error}
      </p>
    );
  return (
    <div class="scroll-x">
      <table class="deployments" data-testid="deployments">
        <thead>
          <tr>
            <th>deployment</th>
            <th>role</th>
            <th>version</th>
            <th>origin</th>
            <th>kernel arguments</th>
          </tr>
        </thead>
        <tbody>
          {d.value.deployments.map((x) => (
            <tr key={x.deployment} data-testid={`deployment-${x.role}`}>
              <td class="mono wrap">{x.deployment}</td>
              <td>
                {x.role}
                {x.booted ? <span class="tag tag-booted">booted</span> : null}
              </td>
              <td>{x.version || '—'}</td>
              <td class="mono wrap">{x.origin || '—'}</td>
              <td class="mono wrap">{x.kernelArguments.join(' ')}</td>
            </tr>
          ))}
          {d.value.staged === undefined ? null : (
            <tr data-testid="deployment-staged">
              <td class="mono wrap">{d.value.staged.checksum}</td>
              <td>staged (next boot)</td>
              <td>{d.value.staged.version || '—'}</td>
              <td class="mono wrap">{d.value.staged.image || '—'}</td>
              <td class="mono wrap">{d.value.staged.kernelArguments.join(' ')}</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

function DaemonLog({ node, token }: { node: string; token: string }) {
  const [lines, setLines] = useState<readonly string[]>([]);
  const [state, setState] = useState<string>('connecting');
  const box = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const abort = new AbortController();
    setLines([]);
    setState('connecting');
    // A log ends when the daemon's container stops (a reboot): follow the new one, from its tail.
    const follow = (): void => {
      let fresh = true;
      followLog(node, token, abort.signal, (batch) => {
        setState('live');
        const keep = fresh;
        fresh = false;
        setLines((old) => [...(keep ? [] : old), ...batch].slice(-MaxLines));
      }).then(
        (error) => {
          if (abort.signal.aborted) return;
          setState(error ?? 'the log ended (the daemon restarted?); reconnecting');
          setTimeout(follow, 2000);
        },
        (e: unknown) => {
          if (abort.signal.aborted) return;
          setState(`${String(e)}; reconnecting`);
          setTimeout(follow, 2000);
        },
      );
    };
    follow();
    return () => {
      abort.abort();
    };
  }, [node, token]);
  useEffect(() => {
    const el = box.current;
    if (el !== null) el.scrollTop = el.scrollHeight;
  }, [lines]);
  return (
    <>
      <p class="meta" data-testid="log-state">
        {state === 'live' ? `live · the last ${lines.length} lines` : state}
      </p>
      <pre class="log mono" ref={box} data-testid="daemon-log">
        {lines.join('\n')}
      </pre>
    </>
  );
}

/** The forcefile, with the user's token: the daemon revalidates nothing once and rewrites its config. */
function ForcefileButton({ node, token }: { node: string; token: string }) {
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  return (
    <div class="actions">
      <button
        type="button"
        disabled={busy || token === ''}
        data-testid="forcefile"
        onClick={() => {
          setBusy(true);
          applyForcefile(node, token)
            .then(
              (a) => {
                setResult(
                  a.ok
                    ? { ok: true, text: `wrote ${a.value.path}` }
                    : { ok: false, text: `${a.code}: ${a.error}` },
                );
              },
              (e: unknown) => {
                setResult({ ok: false, text: String(e) });
              },
            )
            .finally(() => {
              setBusy(false);
            });
        }}
      >
        Apply forcefile
      </button>
      <span class="meta">
        the daemon skips its on-disk check once and writes its whole config again
      </span>
      {result === undefined ? null : (
        <p class={result.ok ? 'action-ok' : 'error'} data-testid="forcefile-result">
          {result.text}
        </p>
      )}
    </div>
  );
}

export function NodeDetailPage({
  name,
  snapshot,
  token,
}: {
  name: string;
  snapshot: DashboardSnapshot;
  token: string;
}): JSX.Element {
  const [detail, setDetail] = useState<{ value?: NodeDetail; error?: string }>({});
  const view = snapshot.nodes.find((n) => n.name === name);
  const key = JSON.stringify(view ?? null);
  useEffect(() => {
    const abort = new AbortController();
    getJson<NodeDetail>(`api/nodes/${encodeURIComponent(name)}`, token, abort.signal).then(
      (a) => {
        setDetail(a.ok ? { value: a.value } : { error: `${a.code}: ${a.error}` });
      },
      (e: unknown) => {
        if (!abort.signal.aborted) setDetail({ error: String(e) });
      },
    );
    return () => {
      abort.abort();
    };
  }, [name, key, token]);
  const d = detail.value;
  return (
    <main class="node-detail" data-testid="node-detail">
      <p>
        <a href="#/">← all pools and nodes</a>
      </p>
      <h2>
        Node <span class="mono">{name}</span>
      </h2>
      {detail.error !== undefined ? <p class="error">{detail.error}</p> : null}
      {d === undefined ? (
        <p class="empty">Loading…</p>
      ) : (
        <>
          <dl class="configs card" data-testid="node-os">
            <dt>pool</dt>
            <dd>{d.pool || '—'}</dd>
            <dt>state</dt>
            <dd data-testid="node-state">
              {d.state || '—'}
              {d.reason === '' ? null : <span class="wrap"> · {d.reason}</span>}
            </dd>
            <dt>OS</dt>
            <dd data-testid="node-os-image">{d.os.osImage || '—'}</dd>
            <dt>kernel</dt>
            <dd class="mono">{d.os.kernelVersion || '—'}</dd>
            <dt>boot ID</dt>
            <dd class="mono wrap" data-testid="node-boot-id">
              {d.os.bootID || '—'}
            </dd>
            <dt>kubelet</dt>
            <dd class="mono">{d.os.kubeletVersion || '—'}</dd>
          </dl>
          <ForcefileButton node={name} token={token} />
          <h3>Deployments</h3>
          <Deployments detail={d} />
          <h3>Configs</h3>
          <div class="config-pair">
            <ConfigBox label="current" config={d.current} />
            <ConfigBox label="desired" config={d.desired} />
          </div>
          <h3>MachineConfigNode conditions</h3>
          {d.conditions.length === 0 ? (
            <p class="empty">No MachineConfigNode conditions yet.</p>
          ) : (
            <div class="scroll-x">
              <table class="conditions" data-testid="mcn-conditions">
                <thead>
                  <tr>
                    <th>type</th>
                    <th>status</th>
                    <th>reason</th>
                    <th>message</th>
                    <th>since</th>
                  </tr>
                </thead>
                <tbody>
                  {d.conditions.map((c) => (
                    <tr key={c.type} class={`cond-${c.status.toLowerCase()}`}>
                      <td>{c.type}</td>
                      <td>{c.status}</td>
                      <td>{c.reason}</td>
                      <td class="wrap">{c.message}</td>
                      <td class="mono">
                        {c.lastTransitionTime.replace('T', ' ').replace('Z', '')}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
      <h3>Daemon log</h3>
      <DaemonLog node={name} token={token} />
      <h3>Events</h3>
      <Events snapshot={snapshot} fixedNode={name} />
    </main>
  );
}

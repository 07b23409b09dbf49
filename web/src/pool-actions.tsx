/**
 * A pool card's actions: pause or resume, and set maxUnavailable. Each is sent with the user's
 * token; the answer (the new value, or the API server's refusal with its code) is shown beside it.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { poolAction, type PoolView } from './api.js';

export function PoolActions({ pool, token }: { pool: PoolView; token: string }): JSX.Element {
  const [max, setMax] = useState(pool.maxUnavailable);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const run = async (action: 'pause' | 'resume' | 'maxUnavailable', body?: unknown) => {
    setBusy(true);
    try {
      const a = await poolAction(pool.name, action, token, body);
      setResult(
        a.ok
          ? {
              ok: true,
              text:
                action === 'maxUnavailable'
                  ? `maxUnavailable is ${a.value.maxUnavailable}`
                  : a.value.paused
                    ? 'paused'
                    : 'resumed',
            }
          : { ok: false, text: `${a.code}: ${a.error}` },
      );
    } catch (e) {
      setResult({ ok: false, text: String(e) });
    } finally {
      setBusy(false);
    }
  };
  const disabled = busy || token === '';
  return (
    <div class="actions" data-testid={`actions-${pool.name}`}>
      <button
        type="button"
        disabled={disabled}
        data-testid={`pause-${pool.name}`}
        onClick={() => void run(pool.paused ? 'resume' : 'pause')}
      >
        {pool.paused ? 'Resume' : 'Pause'}
      </button>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void run('maxUnavailable', { maxUnavailable: max });
        }}
      >
        <label>
          maxUnavailable{' '}
          <input
            size={5}
            value={max}
            data-testid={`max-input-${pool.name}`}
            onInput={(e) => {
              setMax(e.currentTarget.value);
            }}
          />
        </label>
        <button type="submit" disabled={disabled} data-testid={`max-set-${pool.name}`}>
          Set
        </button>
      </form>
      {token === '' ? <span class="meta">give your token above to act</span> : null}
      {result === undefined ? null : (
        <p class={result.ok ? 'action-ok' : 'error'} data-testid={`action-result-${pool.name}`}>
          {result.text}
        </p>
      )}
    </div>
  );
}

/**
 * Where the user gives the page their own token: every action is sent with it, and only with it
 * (the dashboard acts for no one), so the API server decides what this user may do.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';

export function TokenBox({
  token,
  onToken,
}: {
  token: string;
  onToken: (t: string) => void;
}): JSX.Element {
  const [draft, setDraft] = useState('');
  if (token !== '')
    return (
      <div class="token-box" data-testid="token-box">
        <span class="token-set" data-testid="token-state">
          acting with your token
        </span>
        <button
          type="button"
          data-testid="token-forget"
          onClick={() => {
            onToken('');
          }}
        >
          forget
        </button>
      </div>
    );
  return (
    <form
      class="token-box"
      data-testid="token-box"
      onSubmit={(e) => {
        e.preventDefault();
        onToken(draft.trim());
        setDraft('');
      }}
    >
      <label>
        <span class="token-label">your token</span>{' '}
        <input
          type="password"
          autocomplete="off"
          placeholder="oc whoami -t"
          value={draft}
          data-testid="token-input"
          onInput={(e) => {
            setDraft(e.currentTarget.value);
          }}
        />
      </label>
      <button type="submit" data-testid="token-use">
        use
      </button>
    </form>
  );
}

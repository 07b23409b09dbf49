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
          placeholder="a bearer token"
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
      <details class="token-help" data-testid="token-help">
        <summary>which token?</summary>
        <p>
          Yours, as the API server knows you. On the cluster in a box, the admin's (with{' '}
          <code>KUBECONFIG=.mco/admin.kubeconfig</code>):{' '}
          <code>kubectl config view --raw -o jsonpath='{'{.users[0].user.token}'}'</code>. A
          ServiceAccount's: <code>kubectl create token NAME -n NAMESPACE</code>. On OpenShift:{' '}
          <code>oc whoami -t</code>.
        </p>
      </details>
    </form>
  );
}

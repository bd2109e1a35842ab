import { useMutation, useQueryClient } from '@tanstack/react-query';
import { KeyRound } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PasskeySignInButton } from '../components/PasskeySignInButton.tsx';
import { clearSessionEndReason, sessionEndReason } from '../sessionEnd.ts';
import { trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';

/** Exchanges a root key for an HTTP-only session cookie; the key leaves the page's memory after. */
export function SignIn() {
  const queryClient = useQueryClient();
  const [rootKey, setRootKey] = useState('');
  const endedBecause = sessionEndReason();
  const signIn = useMutation(
    trpc.dashboard.signIn.mutationOptions({
      onSuccess: () => {
        setRootKey('');
        clearSessionEndReason();
        return queryClient.invalidateQueries({ queryKey: trpc.dashboard.session.queryKey() });
      },
    }),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ rootKey: rootKey.trim() });
  };

  useDocumentTitle('Sign in');
  return (
    <main className="sign-in">
      <p className="brand mb-4">
        <span className="brand-mark" aria-hidden="true">
          <KeyRound size={14} strokeWidth={2.5} />
        </span>
        Keyplane
      </p>
      <h1>Sign in to Keyplane</h1>
      {endedBecause ? (
        <p className="warning" role="status">
          {endedBecause}
        </p>
      ) : null}
      <form onSubmit={submit}>
        <label htmlFor="root-key">Root key</label>
        <input
          id="root-key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          value={rootKey}
          onChange={(event) => setRootKey(event.target.value)}
          aria-describedby="root-key-hint"
        />
        <p id="root-key-hint" className="hint">
          The key is sent once to start a session; the browser keeps only a session cookie. It needs{' '}
          <code>workspace.*.manage_root_keys</code>.
        </p>
        {signIn.error ? <ErrorMessage error={signIn.error} /> : null}
        <button type="submit" className="primary" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <PasskeySignInButton />
      <div className="mt-6 border-t border-line pt-4 text-sm">
        <h2 className="text-base">Where do I get a root key?</h2>
        <ul className="mt-1 list-disc space-y-1 pl-5 text-muted">
          <li>
            <strong className="text-fg">First start:</strong> the server creates a workspace and prints a root key with
            every permission once, in its log (<code>root key: kproot_…</code>).
          </li>
          <li>
            <strong className="text-fg">From a colleague:</strong> anyone signed in can create one under Root keys, with{' '}
            <code>workspace.*.manage_root_keys</code> among its permissions.
          </li>
          <li>
            <strong className="text-fg">On the server:</strong>{' '}
            <code>
              npm run keyplane -- root-keys create --workspace WORKSPACE_ID --permission workspace.*.manage_root_keys
            </code>{' '}
            (<code>root-keys list</code> and <code>bootstrap</code> too; see <code>npm run keyplane -- help</code>).
          </li>
        </ul>
      </div>
    </main>
  );
}

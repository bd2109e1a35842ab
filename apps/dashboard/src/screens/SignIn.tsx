import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { clearSessionEndReason, sessionEndReason } from '../sessionEnd.ts';
import { trpc } from '../trpc.ts';

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

  return (
    <main className="sign-in">
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
          The key is sent once to start a session; the browser keeps only a session cookie.
        </p>
        {signIn.error ? <ErrorMessage error={signIn.error} /> : null}
        <button type="submit" className="primary" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

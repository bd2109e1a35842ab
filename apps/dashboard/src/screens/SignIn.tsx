import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ArrowLeft, KeyRound, LogIn } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import { AuthPage } from '../components/AuthPage.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PasskeySignInButton } from '../components/PasskeySignInButton.tsx';
import { TextField } from '../components/TextField.tsx';
import { clearSessionEndReason, sessionEndReason } from '../sessionEnd.ts';
import { formatWait, useThrottleWait } from '../signInWait.ts';
import { trpc } from '../trpc.ts';

/** Where single sign-on starts (an HTTP route of the server, not a procedure: it redirects to the provider). */
export const SSO_START = '/auth/oidc/start';

/**
 * The way in for people: email and password first, then single sign-on and passkeys where the
 * server offers them, and a root key as the break-glass path for a workspace without people
 * (docs/dashboard.md, Signing in). Errors read as the server words them; a throttled address is told
 * how long to wait, and the button waits with it.
 */
export function SignIn() {
  const queryClient = useQueryClient();
  const options = useQuery(trpc.account.signInOptions.queryOptions(undefined, { staleTime: 60_000, retry: false }));
  const [usingRootKey, setUsingRootKey] = useState(false);
  const endedBecause = sessionEndReason();
  const signedIn = () => {
    clearSessionEndReason();
    return queryClient.invalidateQueries({ queryKey: trpc.dashboard.session.queryKey() });
  };
  // Unknown until the server answers; should it not, the break-glass path stays reachable.
  const rootKeyOffered = options.data ? options.data.rootKey : options.isError;

  return (
    <AuthPage title="Sign in to Keyplane" documentTitle="Sign in">
      {endedBecause ? (
        <p className="warning mb-3" role="status">
          {endedBecause}
        </p>
      ) : null}
      {usingRootKey && rootKeyOffered ? (
        <RootKeySignIn onSignedIn={signedIn} onBack={() => setUsingRootKey(false)} />
      ) : (
        <>
          <PasswordSignIn onSignedIn={signedIn} />
          <div className="sign-in-alternatives">
            {options.data?.sso ? (
              <a className="button" href={SSO_START}>
                <LogIn size={16} aria-hidden="true" />
                Sign in with SSO
              </a>
            ) : null}
            {options.data?.passkeys ? <PasskeySignInButton /> : null}
          </div>
          {rootKeyOffered ? (
            <div className="sign-in-break-glass">
              <button type="button" className="link" onClick={() => setUsingRootKey(true)}>
                <KeyRound size={14} aria-hidden="true" />
                Sign in with a root key
              </button>
              <p className="hint">For automation owners and a workspace without people yet.</p>
            </div>
          ) : null}
        </>
      )}
    </AuthPage>
  );
}

function PasswordSignIn({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation(
    trpc.account.signIn.mutationOptions({
      onSuccess: () => {
        setPassword('');
        return onSignedIn();
      },
    }),
  );
  const wait = useThrottleWait(signIn.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ email: email.trim(), password });
  };
  return (
    <form onSubmit={submit}>
      <TextField label="Email" type="email" autoComplete="username" required value={email} onChange={setEmail} />
      <TextField
        label="Password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={setPassword}
      />
      {signIn.error ? <ErrorMessage error={signIn.error} /> : null}
      {wait > 0 ? (
        <p className="hint" role="status">
          You can try again in {formatWait(wait)}.
        </p>
      ) : null}
      <button type="submit" className="primary" disabled={signIn.isPending || wait > 0}>
        {signIn.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

/** Exchanges a root key for an HTTP-only session cookie; the key leaves the page's memory after. */
function RootKeySignIn({ onSignedIn, onBack }: { onSignedIn: () => Promise<void>; onBack: () => void }) {
  const [rootKey, setRootKey] = useState('');
  const signIn = useMutation(
    trpc.dashboard.signIn.mutationOptions({
      onSuccess: () => {
        setRootKey('');
        return onSignedIn();
      },
    }),
  );
  const wait = useThrottleWait(signIn.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ rootKey: rootKey.trim() });
  };
  return (
    <>
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
        {wait > 0 ? (
          <p className="hint" role="status">
            You can try again in {formatWait(wait)}.
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={signIn.isPending || wait > 0}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <button type="button" className="link mt-3" onClick={onBack}>
        <ArrowLeft size={14} aria-hidden="true" />
        Sign in with email instead
      </button>
      <div className="mt-6 border-t border-line pt-4 text-sm">
        <h2 className="text-base">Where do I get a root key?</h2>
        <ul className="mt-1 list-disc space-y-1 pl-5 text-muted">
          <li>
            <strong className="text-fg">First start:</strong> the server creates a workspace and prints a root key with
            every permission once, in its log (<code>root key: kproot_…</code>).
          </li>
          <li>
            <strong className="text-fg">From a colleague:</strong> anyone who may manage root keys can create one under
            Root keys, with <code>workspace.*.manage_root_keys</code> among its permissions.
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
    </>
  );
}

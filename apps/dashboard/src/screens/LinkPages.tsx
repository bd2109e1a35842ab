import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { AuthPage } from '../components/AuthPage.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { NewPasswordFields, passwordsMatch } from '../components/NewPasswordFields.tsx';
import { TextField } from '../components/TextField.tsx';
import { formatTime } from '../format.ts';
import { useLinkToken } from '../linkToken.ts';
import { Link, navigate } from '../router.tsx';
import { trpc } from '../trpc.ts';

// The pages of the one-time links (docs/dashboard.md, Team accounts): each reads its token from the
// address's fragment, asks what it needs, and ends in the dashboard, signed in.

/** Once a link has signed the person in: the dashboard, with nothing of the page's form kept. */
function useEnterDashboard(to: string) {
  const queryClient = useQueryClient();
  return async () => {
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'dashboard' });
    await queryClient.invalidateQueries({ queryKey: trpc.dashboard.session.queryKey() });
    navigate(to, { replace: true });
  };
}

/** A link opened without its token (a reload took it out of the address bar, or it was cut short). */
function NoToken({ what }: { what: string }) {
  return (
    <>
      <p className="warning" role="status">
        This page needs the whole link {what}. Open the link again as you received it; it is used only once.
      </p>
      <p className="mt-3 text-sm">
        <Link to="/">Go to the sign-in page</Link>
      </p>
    </>
  );
}

function SubmitButton({ pending, disabled, children }: { pending: boolean; disabled?: boolean; children: ReactNode }) {
  return (
    <button type="submit" className="primary" disabled={pending || disabled}>
      {pending ? 'Working…' : children}
    </button>
  );
}

/** `/dashboard/setup#<token>`: the first run's link, which makes its holder the workspace's owner. */
export function SetupOwner() {
  const token = useLinkToken();
  const enter = useEnterDashboard('/getting-started');
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const setUp = useMutation(trpc.account.setUpOwner.mutationOptions({ onSuccess: enter }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!passwordsMatch(password, confirmation)) return;
    setUp.mutate({ token, email: email.trim(), name: name.trim(), password });
  };
  return (
    <AuthPage title="Set up the owner">
      {token ? (
        <form onSubmit={submit}>
          <p className="text-sm text-muted">
            This link was printed when the server first started. The account you create here owns the workspace: it can
            invite everyone else.
          </p>
          <TextField label="Email" type="email" autoComplete="username" required value={email} onChange={setEmail} />
          <TextField label="Name" autoComplete="name" required value={name} onChange={setName} />
          <NewPasswordFields
            password={password}
            confirmation={confirmation}
            onPasswordChange={setPassword}
            onConfirmationChange={setConfirmation}
          />
          {setUp.error ? <ErrorMessage error={setUp.error} /> : null}
          <SubmitButton pending={setUp.isPending} disabled={!passwordsMatch(password, confirmation)}>
            Create owner account
          </SubmitButton>
        </form>
      ) : (
        <NoToken what="the server printed" />
      )}
    </AuthPage>
  );
}

const ROLE_WORDS: Record<string, string> = {
  owner: 'owner (everything, including members and ownership)',
  admin: 'admin (everything but ownership)',
  member: 'member (APIs, keys, identities, roles, rate limits, webhooks, analytics)',
  viewer: 'viewer (reads everything, changes nothing)',
};

/** `/dashboard/invite#<token>`: joins a workspace with the invited role, making the account if need be. */
export function AcceptInvitation() {
  const token = useLinkToken();
  const invitation = useQuery(
    trpc.account.describeInvitation.queryOptions(
      { token },
      { enabled: token !== '', retry: false, staleTime: Infinity },
    ),
  );
  return (
    <AuthPage title="Join a workspace">
      {!token ? <NoToken what="from your invitation" /> : null}
      {invitation.isPending && token ? (
        <p role="status" className="text-sm">
          Reading the invitation…
        </p>
      ) : null}
      {invitation.error ? (
        <>
          <ErrorMessage error={invitation.error} />
          <p className="text-sm">Ask whoever invited you for a new invitation.</p>
        </>
      ) : null}
      {invitation.data ? <InvitationForm token={token} invitation={invitation.data} /> : null}
    </AuthPage>
  );
}

interface Invitation {
  email: string;
  workspaceName: string;
  role: string;
  expiresAt: number;
  accountExists: boolean;
}

function InvitationForm({ token, invitation }: { token: string; invitation: Invitation }) {
  const enter = useEnterDashboard('/apis');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const accept = useMutation(trpc.account.acceptInvitation.mutationOptions({ onSuccess: enter }));
  const { accountExists } = invitation;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (accountExists) accept.mutate({ token, password });
    else if (passwordsMatch(password, confirmation)) accept.mutate({ token, name: name.trim(), password });
  };
  return (
    <form onSubmit={submit}>
      <dl className="facts" data-testid="invitation">
        <dt>Workspace</dt>
        <dd>{invitation.workspaceName}</dd>
        <dt>Role</dt>
        <dd>{ROLE_WORDS[invitation.role] ?? invitation.role}</dd>
        <dt>Email</dt>
        <dd>{invitation.email}</dd>
        <dt>Valid until</dt>
        <dd>{formatTime(invitation.expiresAt)}</dd>
      </dl>
      {/* The browser's password manager files the password under this email. */}
      <input type="hidden" autoComplete="username" value={invitation.email} readOnly />
      {accountExists ? (
        <>
          <p className="text-sm">You have a Keyplane account: enter its password to join.</p>
          <TextField
            label="Password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={setPassword}
          />
        </>
      ) : (
        <>
          <p className="text-sm">Create your account to join.</p>
          <TextField label="Name" autoComplete="name" required value={name} onChange={setName} />
          <NewPasswordFields
            password={password}
            confirmation={confirmation}
            onPasswordChange={setPassword}
            onConfirmationChange={setConfirmation}
          />
        </>
      )}
      {accept.error ? <ErrorMessage error={accept.error} /> : null}
      <SubmitButton pending={accept.isPending} disabled={!accountExists && !passwordsMatch(password, confirmation)}>
        Join {invitation.workspaceName}
      </SubmitButton>
    </form>
  );
}

/** `/dashboard/reset#<token>`: a new password from the link an owner or admin issued. */
export function ResetPassword() {
  const token = useLinkToken();
  const enter = useEnterDashboard('/apis');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const reset = useMutation(trpc.account.resetPassword.mutationOptions({ onSuccess: enter }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (passwordsMatch(password, confirmation)) reset.mutate({ token, password });
  };
  return (
    <AuthPage title="Choose a new password">
      {token ? (
        <form onSubmit={submit}>
          <p className="text-sm text-muted">
            Your sessions elsewhere end when the new password is set; you are signed in here.
          </p>
          <NewPasswordFields
            label="New password"
            password={password}
            confirmation={confirmation}
            onPasswordChange={setPassword}
            onConfirmationChange={setConfirmation}
          />
          {reset.error ? <ErrorMessage error={reset.error} /> : null}
          <SubmitButton pending={reset.isPending} disabled={!passwordsMatch(password, confirmation)}>
            Set password
          </SubmitButton>
        </form>
      ) : (
        <NoToken what="you were given" />
      )}
    </AuthPage>
  );
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { LogOut } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import { sessionQueryOptions } from '../access.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { NewPasswordFields, passwordsMatch } from '../components/NewPasswordFields.tsx';
import { PasskeysSection } from '../components/PasskeysSection.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { TextField } from '../components/TextField.tsx';
import { useLeaveGuard } from '../router.tsx';
import { trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';

/**
 * A person's own settings: their name, their password, their passkeys and where they are signed in.
 * Signed in with a root key there is no account to set: the page says so.
 */
export function AccountSettings() {
  useDocumentTitle('Account');
  const session = useQuery(sessionQueryOptions);
  const person = session.data?.person;
  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Account</h1>
      </div>
      {session.data && !person ? (
        <p className="note" role="status">
          You are signed in with the root key {session.data.rootKeyName ?? session.data.rootKeyId}, not an account:
          there is nothing to set here. People sign in with their own accounts; invite them under Members.
        </p>
      ) : null}
      {person ? (
        <>
          <p className="page-intro">Your own account ({person.email}): the same in every workspace you belong to.</p>
          <ProfileSection />
          <PasswordSection />
          <PasskeysSection />
          <SessionsSection />
        </>
      ) : null}
    </>
  );
}

function ProfileSection() {
  const queryClient = useQueryClient();
  const me = useQuery(trpc.account.me.queryOptions());
  const [name, setName] = useState<string | undefined>();
  const saved = me.data?.name ?? '';
  const shown = name ?? saved;
  const edited = name !== undefined && name !== saved;
  useLeaveGuard(edited);
  const update = useMutation(
    trpc.account.updateProfile.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.account.me.queryKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.dashboard.session.queryKey() });
        setName(undefined);
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ name: shown.trim() });
  };
  return (
    <section className="panel" aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      {me.error ? <ErrorMessage error={me.error} onRetry={() => void me.refetch()} /> : null}
      {me.isPending ? <BlockSkeleton height="4rem" /> : null}
      {me.data ? (
        <form onSubmit={submit} className="stack max-w-md">
          <dl className="facts">
            <dt>Email</dt>
            <dd>{me.data.email}</dd>
          </dl>
          <TextField label="Name" autoComplete="name" required maxLength={200} value={shown} onChange={setName} />
          {update.error ? <ErrorMessage error={update.error} /> : null}
          <div className="actions">
            <button type="submit" className="primary" disabled={!edited || update.isPending}>
              Save name
            </button>
            <span role="status" className="text-sm">
              {update.isSuccess && !edited ? 'Saved.' : null}
            </span>
          </div>
        </form>
      ) : null}
    </section>
  );
}

function PasswordSection() {
  const me = useQuery(trpc.account.me.queryOptions());
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const change = useMutation(
    trpc.account.changePassword.mutationOptions({
      onSuccess: () => {
        setCurrent('');
        setPassword('');
        setConfirmation('');
        return queryClient.invalidateQueries({ queryKey: trpc.account.pathKey() });
      },
    }),
  );
  // An account made through single sign-on may have no password yet: it sets one without the old.
  const hasPassword = me.data?.hasPassword ?? true;
  useLeaveGuard(password !== '' && !change.isPending);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!passwordsMatch(password, confirmation)) return;
    change.mutate(hasPassword ? { currentPassword: current, newPassword: password } : { newPassword: password });
  };
  return (
    <section className="panel" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <form onSubmit={submit} className="stack max-w-md">
        {/* For password managers: whose password this is. */}
        <input type="hidden" autoComplete="username" value={me.data?.email ?? ''} readOnly />
        {hasPassword ? (
          <TextField
            label="Current password"
            type="password"
            autoComplete="current-password"
            required
            value={current}
            onChange={setCurrent}
          />
        ) : (
          <p className="text-sm">Your account has no password yet: set one to sign in without single sign-on.</p>
        )}
        <NewPasswordFields
          label="New password"
          password={password}
          confirmation={confirmation}
          onPasswordChange={setPassword}
          onConfirmationChange={setConfirmation}
        />
        {change.error ? <ErrorMessage error={change.error} /> : null}
        <div className="actions">
          <button
            type="submit"
            className="primary"
            disabled={change.isPending || password === '' || !passwordsMatch(password, confirmation)}
          >
            {hasPassword ? 'Change password' : 'Set password'}
          </button>
          <span role="status" className="text-sm">
            {change.data && password === '' ? `Password changed. ${othersSignedOut(change.data.sessionsEnded)}` : null}
          </span>
        </div>
      </form>
    </section>
  );
}

function SessionsSection() {
  const queryClient = useQueryClient();
  const sessions = useQuery(trpc.account.listSessions.queryOptions());
  const [confirming, setConfirming] = useState(false);
  const signOutEverywhere = useMutation(
    trpc.account.signOutEverywhere.mutationOptions({
      // This session ended with the others: the session query's 401 brings the sign-in page.
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.dashboard.session.queryKey() }),
    }),
  );
  return (
    <section className="panel" aria-labelledby="sessions-title">
      <div className="page-header">
        <h2 id="sessions-title" className="mb-0">
          Active sessions
        </h2>
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          <LogOut size={16} aria-hidden="true" />
          Sign out everywhere
        </button>
      </div>
      <p className="text-sm text-muted">
        Where your account is signed in to this workspace now. Each session ends after 12 idle hours or 7 days.
      </p>
      <DataTable
        caption="Your active sessions"
        columns={['Session', 'Signed in', 'Last active']}
        query={sessions}
        rows={sessions.data}
        loadingLabel="sessions"
        emptyMessage="No active session."
        rowKey={(row) => row.sessionId}
        renderCells={(row) => (
          <>
            <th scope="row">
              {row.current ? <StatusBadge label="This browser" tone="good" /> : 'Another browser or device'}
            </th>
            <td>
              <RelativeTime epochMs={row.createdAt} />
            </td>
            <td>
              <RelativeTime epochMs={row.lastSeenAt} />
            </td>
          </>
        )}
      />
      <ConfirmDialog
        title="Sign out everywhere"
        open={confirming}
        confirmLabel="Sign out everywhere"
        pending={signOutEverywhere.isPending}
        error={signOutEverywhere.error}
        onConfirm={() => signOutEverywhere.mutate()}
        onClose={() => {
          setConfirming(false);
          signOutEverywhere.reset();
        }}
      >
        <p>
          End every session of your account, in every browser and workspace, this one included? You then sign in again.
          Do this if a device was lost or someone else may have used your account.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** What a password change did to the person's other sessions, in words. */
function othersSignedOut(count: number): string {
  if (count === 0) return 'You had no other session.';
  return count === 1 ? 'Your other session was signed out.' : `Your ${count} other sessions were signed out.`;
}

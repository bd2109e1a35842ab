import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Trash2 } from 'lucide-react';
import { useState } from 'react';
import { MANAGE_ROOT_KEYS_PERMISSION, sessionQueryOptions, useReadOnly } from '../access.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { formatTime } from '../format.ts';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';

/**
 * The workspace itself: its name and id (what support and the CLI ask for), how people sign in
 * (an owner turns the root-key sign-in off), and deleting it, which asks for its name typed out first.
 */
export function WorkspaceSettings() {
  useDocumentTitle('Settings');
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspace.getWorkspace.queryOptions());
  const [deleting, setDeleting] = useState(false);
  // A viewer may delete nothing: the danger zone is not shown at all.
  const readOnly = useReadOnly();
  const remove = useMutation(
    trpc.workspace.deleteWorkspace.mutationOptions({
      // The session ended with the workspace: the sign-in page says so.
      onSuccess: () => queryClient.resetQueries({ queryKey: trpc.dashboard.session.queryKey() }),
    }),
  );
  const data = workspace.data;

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Settings</h1>
      </div>
      <p className="page-intro">
        This workspace: everything in it belongs to it, and its root keys reach nothing else.
      </p>
      {workspace.error ? <ErrorMessage error={workspace.error} onRetry={() => void workspace.refetch()} /> : null}
      <section className="panel" aria-labelledby="workspace-title">
        <h2 id="workspace-title">Workspace</h2>
        {workspace.isPending ? <BlockSkeleton height="5rem" /> : null}
        {data ? (
          <dl className="facts">
            <dt>Name</dt>
            <dd data-testid="workspace-name">{data.name}</dd>
            <dt>Workspace id</dt>
            <dd className="flex items-center gap-1">
              <code data-testid="workspace-id">{data.workspaceId}</code>
              <CopyButton value={data.workspaceId} />
            </dd>
            <dt>Created</dt>
            <dd title={formatTime(data.createdAt)}>
              <RelativeTime epochMs={data.createdAt} /> · {formatTime(data.createdAt)}
            </dd>
          </dl>
        ) : null}
      </section>
      <SigningInSection workspace={data} />
      {readOnly ? null : (
        <section className="panel border-danger" aria-labelledby="danger-title">
          <h2 id="danger-title" className="text-danger">
            Delete this workspace
          </h2>
          <p className="text-sm">
            Its root keys stop working and its keys stop verifying at once, on every server; everyone signed in is
            signed out. This cannot be undone from the dashboard.
          </p>
          <PermittedButton
            permission={MANAGE_ROOT_KEYS_PERMISSION}
            className="danger"
            disabled={!data}
            onClick={() => setDeleting(true)}
          >
            <Trash2 size={16} aria-hidden="true" />
            Delete workspace
          </PermittedButton>
        </section>
      )}
      <ConfirmDialog
        title="Delete workspace"
        open={deleting}
        confirmLabel="Delete workspace"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate({})}
        onClose={() => {
          setDeleting(false);
          remove.reset();
        }}
        typeToConfirm={data?.name}
      >
        <p>
          Delete the workspace <strong>{data?.name}</strong> (<code>{data?.workspaceId}</code>) with all of its APIs,
          keys, identities, rate limits and webhooks? Every key stops verifying at once, and you are signed out.
        </p>
      </ConfirmDialog>
    </>
  );
}

/**
 * How the dashboard is signed into: people with their accounts, and root keys as the break-glass
 * path, which an owner may turn off for this workspace (DASHBOARD_ROOT_KEY_SIGNIN=false turns it
 * off on the whole server).
 */
function SigningInSection({ workspace }: { workspace: RouterOutputs['workspace']['getWorkspace'] | undefined }) {
  const queryClient = useQueryClient();
  const session = useQuery(sessionQueryOptions);
  const isOwner = session.data?.person?.role === 'owner';
  const enabled = workspace?.rootKeySignInWorkspace;
  // DASHBOARD_ROOT_KEY_SIGNIN=false: the server refuses root keys whatever the workspace says.
  const offOnServer = workspace !== undefined && workspace.rootKeySignInWorkspace && !workspace.rootKeySignIn;
  const [confirming, setConfirming] = useState(false);
  const set = useMutation(
    trpc.workspace.setRootKeySignIn.mutationOptions({
      onSuccess: () => {
        setConfirming(false);
        return queryClient.invalidateQueries({ queryKey: trpc.workspace.getWorkspace.queryKey() });
      },
    }),
  );
  return (
    <section className="panel" aria-labelledby="sign-in-title">
      <h2 id="sign-in-title">Signing in</h2>
      <p className="text-sm">
        People sign in with their own accounts, each with a role; owners and admins invite them under Members. Their
        sessions end after 12 idle hours or 7 days, on sign-out, and at once when they are removed.
      </p>
      <p className="text-sm">
        A root key holding <code>workspace.*.manage_root_keys</code> can sign in too: the break-glass path for a
        workspace whose people are locked out. Its sessions end after 8 hours or when the key is revoked.
      </p>
      {enabled === undefined ? null : (
        <div className="mt-2">
          <label className="checkbox">
            <input
              type="checkbox"
              checked={enabled}
              disabled={!isOwner || set.isPending}
              aria-describedby="root-key-sign-in-hint"
              onChange={(event) => (event.target.checked ? set.mutate({ enabled: true }) : setConfirming(true))}
            />
            Allow signing in with a root key
          </label>
          <p id="root-key-sign-in-hint" className="hint">
            {offOnServer
              ? 'Turned off on this whole server (DASHBOARD_ROOT_KEY_SIGNIN=false), whatever is set here. '
              : ''}
            {isOwner
              ? 'Turned off, root keys still call the API; only the dashboard refuses them.'
              : 'Only an owner changes this.'}
          </p>
          {set.error && !confirming ? <ErrorMessage error={set.error} /> : null}
        </div>
      )}
      <ConfirmDialog
        title="Turn off root-key sign-in"
        open={confirming}
        confirmLabel="Turn off"
        pending={set.isPending}
        error={set.error}
        onConfirm={() => set.mutate({ enabled: false })}
        onClose={() => {
          setConfirming(false);
          set.reset();
        }}
      >
        <p>
          Refuse dashboard sign-in with a root key in this workspace? Only people with accounts can sign in then. Make
          sure an owner can sign in first: with no owner left, nobody can turn it back on from the dashboard.
        </p>
      </ConfirmDialog>
    </section>
  );
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Trash2 } from 'lucide-react';
import { useState } from 'react';
import { MANAGE_ROOT_KEYS_PERMISSION } from '../access.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { formatTime } from '../format.ts';
import { trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';

/**
 * The workspace itself: its name and id (what support and the CLI ask for), and deleting it, which
 * asks for its name typed out first. Signing in is by root key only: the workspace has no accounts.
 */
export function WorkspaceSettings() {
  useDocumentTitle('Settings');
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspace.getWorkspace.queryOptions());
  const [deleting, setDeleting] = useState(false);
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
      <section className="panel" aria-labelledby="sign-in-title">
        <h2 id="sign-in-title">Signing in</h2>
        <p className="text-sm">
          The dashboard is signed into with a root key holding <code>workspace.*.manage_root_keys</code>; sessions end
          after 8 hours, on sign-out, or when that root key is revoked or expires. Manage who can sign in by the root
          keys you hand out, under Root keys.
        </p>
      </section>
      <section className="panel border-danger" aria-labelledby="danger-title">
        <h2 id="danger-title" className="text-danger">
          Delete this workspace
        </h2>
        <p className="text-sm">
          Its root keys stop working and its keys stop verifying at once, on every server; everyone signed in is signed
          out. This cannot be undone from the dashboard.
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

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { LoadingStatus, TableSkeletonRows } from '../components/Skeleton.tsx';
import { formatTime } from '../format.ts';
import { Link } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';

type Namespace = RouterOutputs['ratelimit']['listNamespaces']['data'][number];

export function Ratelimits() {
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const namespaces = useQuery(trpc.ratelimit.listNamespaces.queryOptions({ limit: 50, cursor: pages.cursor }));
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Namespace | null>(null);
  const remove = useMutation(
    trpc.ratelimit.deleteNamespace.mutationOptions({
      onSuccess: () => {
        setDeleting(null);
        return queryClient.invalidateQueries({ queryKey: trpc.ratelimit.pathKey() });
      },
    }),
  );

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Rate limits</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create namespace
        </button>
      </div>
      <p className="hint">
        A namespace holds the standalone limits your API checks with ratelimit.limit, and their overrides.
      </p>
      {namespaces.error ? <ErrorMessage error={namespaces.error} onRetry={() => void namespaces.refetch()} /> : null}
      {namespaces.isPending ? <LoadingStatus label="namespaces" /> : null}
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Rate-limit namespaces</caption>
          <thead>
            <tr>
              <th scope="col">Namespace</th>
              <th scope="col">Namespace id</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {namespaces.isPending ? <TableSkeletonRows columns={4} /> : null}
            {namespaces.data?.data.length === 0 ? (
              <tr>
                <td colSpan={4}>No namespaces yet. Create one to start limiting.</td>
              </tr>
            ) : null}
            {namespaces.data?.data.map((namespace) => (
              <tr key={namespace.id}>
                <th scope="row">
                  <Link to={`/ratelimits/${namespace.id}`}>{namespace.name}</Link>
                </th>
                <td>
                  <code>{namespace.id}</code>
                </td>
                <td>{formatTime(namespace.createdAt)}</td>
                <td>
                  <button type="button" className="danger" onClick={() => setDeleting(namespace)}>
                    Delete<span className="visually-hidden"> namespace {namespace.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager pages={pages} nextCursor={namespaces.data?.pagination.cursor} label="Namespaces" />
      <CreateNamespaceDialog open={creating} onClose={() => setCreating(false)} />
      <ConfirmDialog
        title="Delete namespace"
        open={deleting !== null}
        confirmLabel="Delete namespace"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate({ namespace: deleting.id })}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>
          Delete <strong>{deleting?.name}</strong> and its overrides? Limiting on it fails from then on.
        </p>
      </ConfirmDialog>
    </>
  );
}

function CreateNamespaceDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation(trpc.ratelimit.createNamespace.mutationOptions());

  const close = () => {
    setName('');
    create.reset();
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name: name.trim() },
      {
        onSuccess: () => {
          void queryClient.invalidateQueries({ queryKey: trpc.ratelimit.pathKey() });
          close();
        },
      },
    );
  };

  return (
    <Dialog title="Create namespace" open={open} onClose={close}>
      <form onSubmit={submit} className="stack">
        <div className="field">
          <label htmlFor="namespace-name">Namespace name</label>
          <input
            id="namespace-name"
            required
            maxLength={512}
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        {create.error ? <ErrorMessage error={create.error} /> : null}
        <div className="actions">
          <button type="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create
          </button>
        </div>
      </form>
    </Dialog>
  );
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { Pager, useCursorPages } from '../components/Pager.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { SingleFieldCreateDialog } from '../components/SingleFieldCreateDialog.tsx';
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
        <PermittedButton
          permission={{ resourceType: 'ratelimit', resourceId: '*', action: 'create_namespace' }}
          className="primary"
          onClick={() => setCreating(true)}
        >
          Create namespace
        </PermittedButton>
      </div>
      <p className="hint">
        A namespace holds the standalone limits your API checks with ratelimit.limit, and their overrides.
      </p>
      <DataTable
        caption="Rate-limit namespaces"
        columns={['Namespace', 'Namespace id', 'Created', 'Actions']}
        query={namespaces}
        rows={namespaces.data?.data}
        loadingLabel="namespaces"
        emptyMessage="No namespaces yet. Create one to start limiting."
        rowKey={(namespace) => namespace.id}
        renderCells={(namespace) => (
          <>
            <th scope="row">
              <Link to={`/ratelimits/${namespace.id}`}>{namespace.name}</Link>
            </th>
            <td>
              <code>{namespace.id}</code>
            </td>
            <td>{formatTime(namespace.createdAt)}</td>
            <td>
              <PermittedButton
                permission={{ resourceType: 'ratelimit', resourceId: namespace.id, action: 'delete_namespace' }}
                className="danger"
                onClick={() => setDeleting(namespace)}
              >
                Delete<span className="visually-hidden"> namespace {namespace.name}</span>
              </PermittedButton>
            </td>
          </>
        )}
      />
      <Pager pages={pages} nextCursor={namespaces.data?.pagination.cursor} label="Namespaces" />
      <SingleFieldCreateDialog
        title="Create namespace"
        open={creating}
        onClose={() => setCreating(false)}
        fieldId="namespace-name"
        fieldLabel="Namespace name"
        constraints={{ maxLength: 512 }}
        mutationOptions={trpc.ratelimit.createNamespace.mutationOptions()}
        toInput={(name) => ({ name })}
        onCreated={() => void queryClient.invalidateQueries({ queryKey: trpc.ratelimit.pathKey() })}
      />
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

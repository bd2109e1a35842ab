import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ExternalLink, Gauge, Plus, Trash2 } from 'lucide-react';
import { useMemo, useState } from 'react';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyableId } from '../components/CopyButton.tsx';
import { DataTable, tableColumns } from '../components/DataTable.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { RowMenu } from '../components/RowMenu.tsx';
import { SingleFieldCreateDialog } from '../components/SingleFieldCreateDialog.tsx';
import { TableSearch } from '../components/TableSearch.tsx';
import { WholeListNote } from '../components/WholeListNote.tsx';
import { Link, navigate } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';
import { useTableUrlState } from '../useTableUrlState.ts';
import { useWholeList } from '../useWholeList.ts';

type Namespace = RouterOutputs['ratelimit']['listNamespaces']['data'][number];

const PAGE_SIZE = 50;

function namespaceColumns(onDelete: (namespace: Namespace) => void) {
  const column = tableColumns<Namespace>();
  return column.columns([
    column.accessor('name', {
      header: 'Namespace',
      cell: ({ row }) => (
        <Link to={`/ratelimits/${row.original.id}`} className="row-link">
          {row.original.name}
        </Link>
      ),
    }),
    column.accessor('id', { header: 'Namespace id', cell: ({ row }) => <CopyableId id={row.original.id} /> }),
    column.accessor('createdAt', {
      header: 'Created',
      cell: ({ row }) => <RelativeTime epochMs={row.original.createdAt} />,
    }),
    column.display({
      id: 'actions',
      header: () => <span className="visually-hidden">Actions</span>,
      meta: { phone: 'menu', width: '3rem' },
      cell: ({ row }) => (
        <RowMenu
          label={`namespace ${row.original.name}`}
          actions={[
            {
              label: 'Open namespace',
              icon: ExternalLink,
              onSelect: () => navigate(`/ratelimits/${row.original.id}`),
            },
            'separator',
            {
              label: 'Delete namespace',
              icon: Trash2,
              danger: true,
              permission: { resourceType: 'ratelimit', resourceId: row.original.id, action: 'delete_namespace' },
              onSelect: () => onDelete(row.original),
            },
          ]}
        />
      ),
    }),
  ]);
}

/** The namespaces the root key may read: searched on the server, sorted, counted and paged here. */
export function Ratelimits() {
  const queryClient = useQueryClient();
  const table = useTableUrlState({ id: 'name', desc: false });
  const namespaces = useWholeList(trpc.ratelimit.listNamespaces, { search: table.appliedSearch });
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Namespace | null>(null);
  const columns = useMemo(() => namespaceColumns(setDeleting), []);
  useDocumentTitle('Rate limits');
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
          <Plus size={16} aria-hidden="true" />
          Create namespace
        </PermittedButton>
      </div>
      <p className="hint">
        A namespace holds the standalone limits your API checks with ratelimit.limit, and their overrides.
      </p>
      <TableSearch
        id="namespace-search"
        label="Search namespaces"
        placeholder="Name or namespace id"
        value={table.search}
        onChange={table.setSearch}
      />
      <WholeListNote complete={namespaces.data?.complete} noun="namespaces" />
      <DataTable
        caption="Rate-limit namespaces"
        columns={columns}
        query={namespaces}
        rows={namespaces.data?.rows}
        loadingLabel="namespaces"
        noun={{ one: 'namespace' }}
        emptyMessage={
          table.appliedSearch ? (
            'No namespace matches the search. Try part of its name or its id.'
          ) : (
            <EmptyState icon={Gauge} title="No namespaces yet">
              <p>
                A namespace limits anything your API does (logins, uploads, calls to a partner) per caller: your API
                asks <code>ratelimit.limit</code> with the namespace and an identifier, and gets a yes or no. Create one
                to start limiting.
              </p>
            </EmptyState>
          )
        }
        rowKey={(namespace) => namespace.id}
        sorting={table.sorting}
        onSortingChange={table.setSorting}
        paging={{ pageIndex: table.pageIndex, pageSize: PAGE_SIZE, onPageIndexChange: table.setPageIndex }}
      />
      <SingleFieldCreateDialog
        title="Create namespace"
        open={creating}
        onClose={() => setCreating(false)}
        fieldId="namespace-name"
        fieldLabel="Namespace name"
        constraints={{ maxLength: 512 }}
        mutationOptions={trpc.ratelimit.createNamespace.mutationOptions()}
        toInput={(name) => ({ name })}
        onCreated={({ namespaceId }) => {
          void queryClient.invalidateQueries({ queryKey: trpc.ratelimit.pathKey() });
          navigate(`/ratelimits/${namespaceId}`);
        }}
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

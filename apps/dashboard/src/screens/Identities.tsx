import { useQueryClient } from '@tanstack/react-query';
import { Plus, Users } from 'lucide-react';
import { useState } from 'react';
import { useMissingPermission } from '../access.ts';
import { CopyableId } from '../components/CopyButton.tsx';
import { DataTable, tableColumns } from '../components/DataTable.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { SingleFieldCreateDialog } from '../components/SingleFieldCreateDialog.tsx';
import { TableSearch } from '../components/TableSearch.tsx';
import { WholeListNote } from '../components/WholeListNote.tsx';
import { Link, navigate } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';
import { useTableUrlState } from '../useTableUrlState.ts';
import { useWholeList } from '../useWholeList.ts';

type IdentityRow = RouterOutputs['identities']['listIdentities']['data'][number];

const PAGE_SIZE = 50;

const column = tableColumns<IdentityRow>();
const columns = column.columns([
  column.accessor('externalId', {
    header: 'External id',
    cell: ({ row }) => (
      <Link to={`/identities/${row.original.id}`} className="row-link">
        {row.original.externalId}
      </Link>
    ),
  }),
  column.accessor('id', { header: 'Identity id', cell: ({ row }) => <CopyableId id={row.original.id} /> }),
  column.accessor((identity) => identity.ratelimits?.length ?? 0, { id: 'ratelimits', header: 'Rate limits' }),
]);

export function Identities() {
  const queryClient = useQueryClient();
  const table = useTableUrlState({ id: 'externalId', desc: false });
  // Listing checks read_identity on each identity of the page: only the wildcard is sure to pass.
  const readMissing = useMissingPermission({ resourceType: 'identity', resourceId: '*', action: 'read_identity' });
  const identities = useWholeList(
    trpc.identities.listIdentities,
    { search: table.appliedSearch },
    readMissing === undefined,
  );
  const [creating, setCreating] = useState(false);
  useDocumentTitle('Identities');

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Identities</h1>
        <PermittedButton
          permission={{ resourceType: 'identity', resourceId: '*', action: 'create_identity' }}
          className="primary"
          onClick={() => setCreating(true)}
        >
          <Plus size={16} aria-hidden="true" />
          Create identity
        </PermittedButton>
      </div>
      <p className="page-intro">
        An identity is one of your customers: its keys share its meta and its rate limits, and its usage is counted
        together.
      </p>
      {readMissing ? (
        <p className="hint">Not listed: {readMissing}</p>
      ) : (
        <>
          <TableSearch
            id="identity-search"
            label="Search identities"
            placeholder="Identity id or external id"
            value={table.search}
            onChange={table.setSearch}
          />
          <WholeListNote complete={identities.data?.complete} noun="identities" />
          <DataTable
            caption="Identities of this workspace"
            columns={columns}
            query={identities}
            rows={identities.data?.rows}
            loadingLabel="identities"
            noun={{ one: 'identity', other: 'identities' }}
            emptyMessage={
              table.appliedSearch ? (
                'No identity matches the search.'
              ) : (
                <EmptyState icon={Users} title="No identities yet">
                  <p>
                    Create one here, or give a key an external id (your id for the customer) when you create it: the
                    identity is made with it.
                  </p>
                </EmptyState>
              )
            }
            rowKey={(identity) => identity.id}
            sorting={table.sorting}
            onSortingChange={table.setSorting}
            paging={{ pageIndex: table.pageIndex, pageSize: PAGE_SIZE, onPageIndexChange: table.setPageIndex }}
          />
        </>
      )}
      <SingleFieldCreateDialog
        title="Create identity"
        open={creating}
        onClose={() => setCreating(false)}
        fieldId="identity-external-id"
        fieldLabel="External id"
        constraints={{ pattern: '[a-zA-Z0-9_.\\-]+', maxLength: 255 }}
        mutationOptions={trpc.identities.createIdentity.mutationOptions()}
        toInput={(externalId) => ({ externalId })}
        onCreated={({ identityId }) => {
          void queryClient.invalidateQueries({ queryKey: trpc.identities.pathKey() });
          navigate(`/identities/${identityId}`);
        }}
      />
    </>
  );
}

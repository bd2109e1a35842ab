import { useQueryClient } from '@tanstack/react-query';
import { Plus } from 'lucide-react';
import { useState } from 'react';
import { CopyableId } from '../components/CopyButton.tsx';
import { DataTable, tableColumns } from '../components/DataTable.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { SingleFieldCreateDialog } from '../components/SingleFieldCreateDialog.tsx';
import { TableSearch } from '../components/TableSearch.tsx';
import { WholeListNote } from '../components/WholeListNote.tsx';
import { Link, navigate } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';
import { useTableUrlState } from '../useTableUrlState.ts';
import { useWholeList } from '../useWholeList.ts';
import { FirstRunGuide } from './GettingStarted.tsx';

type ApiRow = RouterOutputs['apis']['listApis']['data'][number];

const PAGE_SIZE = 50;

const column = tableColumns<ApiRow>();
const columns = column.columns([
  column.accessor('name', {
    header: 'Name',
    cell: ({ row }) => (
      <Link to={`/apis/${row.original.id}`} className="row-link">
        {row.original.name}
      </Link>
    ),
  }),
  column.accessor('id', { header: 'API id', cell: ({ row }) => <CopyableId id={row.original.id} /> }),
  column.accessor('createdAt', {
    header: 'Created',
    cell: ({ row }) => <RelativeTime epochMs={row.original.createdAt} />,
  }),
]);

/** The APIs the root key may read: searched on the server, sorted, counted and paged here. */
export function Apis() {
  const queryClient = useQueryClient();
  const table = useTableUrlState({ id: 'name', desc: false });
  const apis = useWholeList(trpc.apis.listApis, { search: table.appliedSearch });
  const [creating, setCreating] = useState(false);
  useDocumentTitle('APIs');
  // A workspace without any API yet gets the first-run guide in place of an empty table.
  const firstRun = apis.data?.rows.length === 0 && !table.appliedSearch;

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>APIs</h1>
        {firstRun ? null : (
          <PermittedButton
            permission={{ resourceType: 'api', resourceId: '*', action: 'create_api' }}
            className="primary"
            onClick={() => setCreating(true)}
          >
            <Plus size={16} aria-hidden="true" />
            Create API
          </PermittedButton>
        )}
      </div>
      <p className="page-intro">Each API holds the keys of one of your products, and how they are made.</p>
      {firstRun ? <FirstRunGuide /> : null}
      <TableSearch
        id="api-search"
        label="Search APIs"
        placeholder="Name or API id"
        value={table.search}
        onChange={table.setSearch}
      />
      <WholeListNote complete={apis.data?.complete} noun="APIs" />
      <DataTable
        caption="APIs of this workspace"
        columns={columns}
        query={apis}
        rows={apis.data?.rows}
        loadingLabel="APIs"
        noun={{ one: 'API' }}
        emptyMessage={
          table.appliedSearch
            ? 'No API matches the search. Try part of its name or its id.'
            : 'No APIs yet: the guide above starts with one.'
        }
        rowKey={(api) => api.id}
        sorting={table.sorting}
        onSortingChange={table.setSorting}
        paging={{ pageIndex: table.pageIndex, pageSize: PAGE_SIZE, onPageIndexChange: table.setPageIndex }}
      />
      <SingleFieldCreateDialog
        title="Create API"
        open={creating}
        onClose={() => setCreating(false)}
        fieldId="api-name"
        fieldLabel="API name"
        constraints={{ minLength: 3, maxLength: 255 }}
        mutationOptions={trpc.apis.createApi.mutationOptions()}
        toInput={(name) => ({ name })}
        onCreated={({ apiId }) => {
          void queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() });
          navigate(`/apis/${apiId}`);
        }}
      />
    </>
  );
}

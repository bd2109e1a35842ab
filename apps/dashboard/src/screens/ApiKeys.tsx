import { hasLowCredits, LOW_CREDITS } from '@keyplane/core/rules';
import type { AppRouter } from '@keyplane/procedures';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { inferRouterInputs } from '@trpc/server';
import { useMemo, useState } from 'react';
import { CopyableId } from '../components/CopyButton.tsx';
import { DataTable, type TableColumns, tableColumns } from '../components/DataTable.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { KeyStatusBadge } from '../components/StatusBadge.tsx';
import { TableSearch } from '../components/TableSearch.tsx';
import { Link } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useTableUrlState } from '../useTableUrlState.ts';
import { CreateKeyDialog } from './CreateKeyDialog.tsx';

const PAGE_SIZE = 50;

type KeyRow = RouterOutputs['apis']['listKeysPage']['keys'][number];
type KeysPageInput = inferRouterInputs<AppRouter>['apis']['listKeysPage'];
type StatusFilter = NonNullable<KeysPageInput['status']>;
type KeySort = NonNullable<KeysPageInput['sort']>;

const LOW_CREDITS_RULE =
  `Low credits: at most ${LOW_CREDITS.shareOfRefill * 100}% of the refill amount left, ` +
  `or at most ${LOW_CREDITS.withoutRefill} without a refill (keys that still verify).`;

const STATUS_FILTERS: Record<StatusFilter, string> = {
  enabled: 'Enabled',
  expired: 'Expired',
  disabled: 'Disabled',
  out_of_credits: 'Out of credits',
  low_credits: 'Low credits',
};

const isStatusFilter = (value: string | undefined): value is StatusFilter =>
  value !== undefined && value in STATUS_FILTERS;

/** The sort columns the server knows; the table's column ids are these. */
const KEY_SORTS: readonly KeySort[] = [
  'name',
  'keyId',
  'start',
  'externalId',
  'status',
  'credits',
  'createdAt',
  'lastUsedAt',
  'expires',
];

const isKeySort = (id: string | undefined): id is KeySort => KEY_SORTS.some((sort) => sort === id);

function CreditsCell({ keyData }: { keyData: KeyRow }) {
  const credits = keyData.credits;
  if (!credits || credits.remaining === null) return <>Unlimited</>;
  const low = hasLowCredits(
    {
      enabled: keyData.enabled,
      expires: keyData.expires,
      remainingCredits: credits.remaining,
      refillAmount: credits.refill?.amount,
    },
    Date.now(),
  );
  return (
    <>
      {credits.remaining}
      {credits.refill ? (
        <span className="hint">
          {' '}
          of {credits.refill.amount} {credits.refill.interval}
        </span>
      ) : null}
      {low ? (
        <span className="low-credits" title={LOW_CREDITS_RULE}>
          {' '}
          Low
        </span>
      ) : null}
    </>
  );
}

function keyColumns(apiId: string): TableColumns<KeyRow> {
  const column = tableColumns<KeyRow>();
  return column.columns([
    column.accessor((key) => key.name ?? key.keyId, {
      id: 'name',
      header: 'Name',
      cell: ({ row }) => (
        <Link to={`/apis/${apiId}/keys/${row.original.keyId}`}>{row.original.name ?? row.original.keyId}</Link>
      ),
    }),
    column.accessor('keyId', {
      id: 'keyId',
      header: 'Key id',
      cell: ({ row }) => <CopyableId id={row.original.keyId} />,
    }),
    column.accessor('start', {
      id: 'start',
      header: 'Starts with',
      cell: ({ row }) => <code>{row.original.start}…</code>,
    }),
    column.accessor((key) => key.identity?.externalId, {
      id: 'externalId',
      header: 'External id',
      cell: ({ row }) => {
        const identity = row.original.identity;
        return identity ? <Link to={`/identities/${identity.id}`}>{identity.externalId}</Link> : '—';
      },
    }),
    column.accessor('enabled', {
      id: 'status',
      header: 'Status',
      cell: ({ row }) => <KeyStatusBadge keyData={row.original} />,
    }),
    column.accessor((key) => key.credits?.remaining, {
      id: 'credits',
      header: 'Credits',
      cell: ({ row }) => <CreditsCell keyData={row.original} />,
    }),
    column.accessor('createdAt', {
      id: 'createdAt',
      header: 'Created',
      cell: ({ row }) => <RelativeTime epochMs={row.original.createdAt} />,
    }),
    column.accessor('lastUsedAt', {
      id: 'lastUsedAt',
      header: 'Last used',
      cell: ({ row }) => <RelativeTime epochMs={row.original.lastUsedAt} none="Never" />,
    }),
    column.accessor('expires', {
      id: 'expires',
      header: 'Expires',
      cell: ({ row }) => <RelativeTime epochMs={row.original.expires} none="Never" />,
    }),
  ]);
}

/**
 * The API's keys, a page at a time. Search (name, key id, start or the owner's external id), status
 * filter, sort and total are the server's, over all keys; all of them live in the URL.
 */
export function ApiKeys({ apiId }: { apiId: string }) {
  const table = useTableUrlState({ id: 'createdAt', desc: true });
  const statusParam = table.filter('status');
  const status = isStatusFilter(statusParam) ? statusParam : undefined;
  const [sort] = table.sorting;
  const columns = useMemo(() => keyColumns(apiId), [apiId]);
  const keys = useQuery({
    ...trpc.apis.listKeysPage.queryOptions({
      apiId,
      search: table.appliedSearch,
      status,
      sort: isKeySort(sort?.id) ? sort.id : 'createdAt',
      direction: sort?.desc === false ? 'asc' : 'desc',
      page: table.pageIndex + 1,
      pageSize: PAGE_SIZE,
    }),
    // The rows of the last page stay while the next loads, so the table does not jump.
    placeholderData: keepPreviousData,
  });
  const [creating, setCreating] = useState(false);

  return (
    <section aria-labelledby="api-keys-title" className="panel">
      <div className="page-header">
        <h2 id="api-keys-title">Keys</h2>
        <PermittedButton
          permission={{ resourceType: 'api', resourceId: apiId, action: 'create_key' }}
          className="primary"
          onClick={() => setCreating(true)}
        >
          Create key
        </PermittedButton>
      </div>
      <div className="filters">
        <TableSearch
          id="key-search"
          label="Search keys"
          placeholder="Name, key id, start or external id"
          value={table.search}
          onChange={table.setSearch}
        />
        <div className="field">
          <label htmlFor="key-status">Status</label>
          <select
            id="key-status"
            value={status ?? ''}
            title={LOW_CREDITS_RULE}
            onChange={(event) => table.setFilter('status', event.target.value || undefined)}
          >
            <option value="">Any status</option>
            {Object.entries(STATUS_FILTERS).map(([value, label]) => (
              <option key={value} value={value} title={value === 'low_credits' ? LOW_CREDITS_RULE : undefined}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {status === 'low_credits' ? <p className="hint">{LOW_CREDITS_RULE}</p> : null}
      <DataTable
        caption="Keys of this API"
        columns={columns}
        query={keys}
        rows={keys.data?.keys}
        loadingLabel="keys"
        noun={{ one: 'key' }}
        emptyMessage={
          table.appliedSearch || status
            ? 'No key matches the search and status. Try part of its name, its id, its first characters or its external id.'
            : 'No keys yet. Create one to give a customer access.'
        }
        rowKey={(key) => key.keyId}
        sorting={table.sorting}
        onSortingChange={table.setSorting}
        paging={{ pageIndex: table.pageIndex, pageSize: PAGE_SIZE, onPageIndexChange: table.setPageIndex }}
        server={{ total: keys.data?.total }}
      />
      <CreateKeyDialog apiId={apiId} open={creating} onClose={() => setCreating(false)} />
    </section>
  );
}

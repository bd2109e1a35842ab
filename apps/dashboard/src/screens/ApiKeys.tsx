import { hasLowCredits, LOW_CREDITS } from '@keyplane/core/rules';
import type { AppRouter } from '@keyplane/procedures';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { inferRouterInputs } from '@trpc/server';
import { Copy, ExternalLink, KeyRound, Plus, Power, PowerOff, Trash2 } from 'lucide-react';
import { useMemo, useState } from 'react';
import { useMissingPermission, useReadOnly } from '../access.ts';
import { verificationsQueryOptions } from '../analytics.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { DataTable, type TableColumns, tableColumns } from '../components/DataTable.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { MiniSparkline } from '../components/MiniSparkline.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { RowMenu } from '../components/RowMenu.tsx';
import { KeyStatusBadge } from '../components/StatusBadge.tsx';
import { TableSearch } from '../components/TableSearch.tsx';
import { formatCompactNumber, formatCount, formatNumber } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import { type RouterOutputs, trpc, trpcClient } from '../trpc.ts';
import { bucketStarts, keysDailyUsageQuery, toCount } from '../usageQueries.ts';
import { useTableUrlState } from '../useTableUrlState.ts';
import { CreateKeyDialog } from './CreateKeyDialog.tsx';

const PAGE_SIZE = 50;
/** A key expiring within this is marked as expiring soon. */
export const EXPIRING_SOON_MS = 7 * 86_400_000;

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
  if (!credits || credits.remaining === null) return <span className="text-muted">Unlimited</span>;
  const low = hasLowCredits(
    {
      enabled: keyData.enabled,
      expires: keyData.expires,
      remainingCredits: credits.remaining,
      refillAmount: credits.refill?.amount,
    },
    Date.now(),
  );
  const refill = credits.refill;
  return (
    <span
      className="flex flex-col leading-tight max-sm:inline-flex max-sm:flex-row max-sm:gap-1"
      title={`${formatNumber(credits.remaining)} credits left${refill ? `, refilled to ${formatNumber(refill.amount)} ${refill.interval}` : ''}`}
    >
      <span className="whitespace-nowrap">
        {formatCompactNumber(credits.remaining)}
        {refill ? <span className="text-muted"> / {formatCompactNumber(refill.amount)}</span> : null}
        {low ? (
          <span className="low-credits" title={LOW_CREDITS_RULE}>
            {' '}
            Low
          </span>
        ) : null}
      </span>
      {refill ? <span className="text-xs text-muted max-sm:hidden">refills {refill.interval}</span> : null}
    </span>
  );
}

function ExpiresCell({ expires }: { expires: number | undefined }) {
  const soon = expires !== undefined && expires > Date.now() && expires - Date.now() < EXPIRING_SOON_MS;
  return (
    <span className={soon ? 'font-medium text-warning' : undefined}>
      <RelativeTime epochMs={expires} none="Never" />
    </span>
  );
}

interface KeyColumnsOptions {
  apiId: string;
  usage: ReadonlyMap<string, number[]> | undefined;
  usageMissing: string | undefined;
  selected: ReadonlySet<string>;
  onSelect: (keyIds: string[], on: boolean) => void;
  pageKeyIds: string[];
  onToggle: (key: KeyRow) => void;
  onDelete: (key: KeyRow) => void;
  /** A session that may change nothing: no selection for bulk changes. */
  readOnly: boolean;
}

function keyColumns(options: KeyColumnsOptions): TableColumns<KeyRow> {
  const { apiId, usage, usageMissing, selected, onSelect, pageKeyIds, onToggle, onDelete, readOnly } = options;
  const column = tableColumns<KeyRow>();
  const allSelected = pageKeyIds.length > 0 && pageKeyIds.every((keyId) => selected.has(keyId));
  const nameOf = (key: KeyRow) => key.name ?? key.keyId;
  const columns = column.columns([
    column.display({
      id: 'select',
      header: () => (
        <input
          type="checkbox"
          aria-label="Select every key on this page"
          checked={allSelected}
          onChange={(event) => onSelect(pageKeyIds, event.target.checked)}
        />
      ),
      meta: { phone: 'hidden', width: '2.5rem' },
      cell: ({ row }) => (
        <input
          type="checkbox"
          aria-label={`Select ${nameOf(row.original)}`}
          checked={selected.has(row.original.keyId)}
          onChange={(event) => onSelect([row.original.keyId], event.target.checked)}
        />
      ),
    }),
    column.accessor((key) => key.name ?? key.keyId, {
      id: 'name',
      header: 'Key',
      meta: { rowHeader: true },
      cell: ({ row }) => (
        <span className="flex min-w-0 flex-col leading-tight">
          <Link
            to={`/apis/${apiId}/keys/${row.original.keyId}`}
            className="row-link truncate font-medium"
            title={nameOf(row.original)}
          >
            {nameOf(row.original)}
          </Link>
          <code className="mono-muted truncate" title={`Key id ${row.original.keyId}`}>
            {row.original.start}…
          </code>
        </span>
      ),
    }),
    column.accessor('enabled', {
      id: 'status',
      header: 'Status',
      meta: { phone: 'badge', width: '8rem' },
      cell: ({ row }) => <KeyStatusBadge keyData={row.original} />,
    }),
    column.accessor((key) => key.identity?.externalId, {
      id: 'externalId',
      header: 'Identity',
      meta: { phone: 'hidden', width: '8.5rem' },
      cell: ({ row }) => {
        const identity = row.original.identity;
        return identity ? (
          <Link to={`/identities/${identity.id}`} className="block truncate" title={identity.externalId}>
            {identity.externalId}
          </Link>
        ) : (
          <span className="text-muted">—</span>
        );
      },
    }),
    column.accessor((key) => key.credits?.remaining, {
      id: 'credits',
      header: 'Credits',
      meta: { width: '7.5rem' },
      cell: ({ row }) => <CreditsCell keyData={row.original} />,
    }),
    column.display({
      id: 'usage',
      header: 'Usage, 30 days',
      meta: { phone: 'hidden', width: '9rem' },
      cell: ({ row }) => {
        if (usageMissing)
          return (
            <span className="text-muted" title={usageMissing}>
              —
            </span>
          );
        const values = usage?.get(row.original.keyId);
        if (!usage) return <span className="skeleton" />;
        const total = (values ?? []).reduce((sum, value) => sum + value, 0);
        return (
          <span className="flex items-center gap-2" title={`${formatNumber(total)} verifications in the last 30 days`}>
            <MiniSparkline
              values={values ?? []}
              label={`${formatNumber(total)} verifications of ${nameOf(row.original)} in the last 30 days`}
            />
            <span className="tabular-nums">{formatCompactNumber(total)}</span>
          </span>
        );
      },
    }),
    column.accessor('lastUsedAt', {
      id: 'lastUsedAt',
      header: 'Last used',
      meta: { width: '7rem' },
      cell: ({ row }) => <RelativeTime epochMs={row.original.lastUsedAt} none="Never" />,
    }),
    column.accessor('expires', {
      id: 'expires',
      header: 'Expires',
      meta: { phone: 'hidden', width: '6.5rem' },
      cell: ({ row }) => <ExpiresCell expires={row.original.expires} />,
    }),
    column.display({
      id: 'actions',
      header: () => <span className="visually-hidden">Actions</span>,
      meta: { phone: 'menu', width: '3rem' },
      cell: ({ row }) => {
        const key = row.original;
        return (
          <RowMenu
            label={nameOf(key)}
            actions={[
              { label: 'Open key', icon: ExternalLink, onSelect: () => navigate(`/apis/${apiId}/keys/${key.keyId}`) },
              { label: 'Copy key id', icon: Copy, onSelect: () => void navigator.clipboard.writeText(key.keyId) },
              {
                label: key.enabled ? 'Disable key' : 'Enable key',
                icon: key.enabled ? PowerOff : Power,
                onSelect: () => onToggle(key),
                permission: { resourceType: 'api', resourceId: apiId, action: 'update_key' },
              },
              'separator',
              {
                label: 'Delete key',
                icon: Trash2,
                danger: true,
                onSelect: () => onDelete(key),
                permission: { resourceType: 'api', resourceId: apiId, action: 'delete_key' },
              },
            ]}
          />
        );
      },
    }),
  ]);
  return readOnly ? columns.filter((definition) => definition.id !== 'select') : columns;
}

/** Each key's verifications per day over the last 30 days, for the keys of one page: one analytics query. */
function useKeysUsage(apiId: string, keyIds: string[], missing: string | undefined) {
  // The day changes seldom: the buckets are those of the hour the page was opened in.
  const [now] = useState(() => Date.now());
  const days = useMemo(() => bucketStarts('month', now), [now]);
  const from = days[0] ?? now;
  const usage = useQuery({
    ...verificationsQueryOptions(keysDailyUsageQuery(from, apiId, keyIds), { staleTime: 60_000 }),
    enabled: missing === undefined && keyIds.length > 0,
  });
  return useMemo(() => {
    if (!usage.data) return undefined;
    const index = new Map(days.map((day, at) => [day, at]));
    const perKey = new Map<string, number[]>();
    for (const row of usage.data) {
      const keyId = String(row.key_id);
      const at = index.get(toCount(row.time));
      if (at === undefined) continue;
      const values = perKey.get(keyId) ?? days.map(() => 0);
      values[at] = (values[at] ?? 0) + toCount(row.total);
      perKey.set(keyId, values);
    }
    return perKey;
  }, [usage.data, days]);
}

/**
 * The API's keys, a page at a time. Search (name, key id, start or the owner's external id), status
 * filter, sort and total are the server's, over all keys; all of them live in the URL. Rows can be
 * selected for a bulk disable, enable or delete; each row's other actions are in its menu.
 */
export function ApiKeys({ apiId }: { apiId: string }) {
  const queryClient = useQueryClient();
  const table = useTableUrlState({ id: 'createdAt', desc: true });
  const statusParam = table.filter('status');
  const status = isStatusFilter(statusParam) ? statusParam : undefined;
  const [sort] = table.sorting;
  const input = {
    apiId,
    search: table.appliedSearch,
    status,
    sort: isKeySort(sort?.id) ? sort.id : 'createdAt',
    direction: sort?.desc === false ? ('asc' as const) : ('desc' as const),
    page: table.pageIndex + 1,
    pageSize: PAGE_SIZE,
  };
  const keys = useQuery({
    ...trpc.apis.listKeysPage.queryOptions(input),
    // The rows of the last page stay while the next loads, so the table does not jump.
    placeholderData: keepPreviousData,
  });
  const pageKeyIds = useMemo(() => keys.data?.keys.map((key) => key.keyId) ?? [], [keys.data]);
  const usageMissing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'read_analytics' });
  const usage = useKeysUsage(apiId, pageKeyIds, usageMissing);
  const [creating, setCreating] = useState(false);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [deleting, setDeleting] = useState<KeyRow[] | null>(null);
  const [done, setDone] = useState<string | null>(null);
  // A selection belongs to the page it was made on: a new page, search or filter starts without one.
  const [selectionScope, setSelectionScope] = useState(JSON.stringify(input));
  if (selectionScope !== JSON.stringify(input)) {
    setSelectionScope(JSON.stringify(input));
    setSelected(new Set());
  }

  const afterChange = () => queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() });
  const bulk = useMutation({
    mutationFn: async (change: { keys: KeyRow[]; action: 'enable' | 'disable' | 'delete' }) => {
      const results = await Promise.allSettled(
        change.keys.map((key) =>
          change.action === 'delete'
            ? trpcClient.keys.deleteKey.mutate({ keyId: key.keyId })
            : trpcClient.keys.updateKey.mutate({ keyId: key.keyId, enabled: change.action === 'enable' }),
        ),
      );
      const failed = results.filter((result) => result.status === 'rejected');
      const done = results.length - failed.length;
      const verb = { enable: 'Enabled', disable: 'Disabled', delete: 'Deleted' }[change.action];
      if (failed.length > 0) {
        const reason = failed[0]?.status === 'rejected' ? String((failed[0].reason as Error).message) : '';
        throw new Error(`${verb} ${formatCount(done, 'key')}; ${formatCount(failed.length, 'key')} failed: ${reason}`);
      }
      return `${verb} ${formatCount(done, 'key')}.`;
    },
    onSuccess: (message) => {
      setDone(message);
      setSelected(new Set());
      setDeleting(null);
    },
    onSettled: afterChange,
  });

  const selectedKeys = keys.data?.keys.filter((key) => selected.has(key.keyId)) ?? [];
  const onSelect = (keyIds: string[], on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      for (const keyId of keyIds) {
        if (on) next.add(keyId);
        else next.delete(keyId);
      }
      return next;
    });
  const readOnly = useReadOnly();
  const columns = keyColumns({
    readOnly,
    apiId,
    usage,
    usageMissing,
    selected,
    onSelect,
    pageKeyIds,
    onToggle: (key) => {
      setDone(null);
      bulk.mutate({ keys: [key], action: key.enabled ? 'disable' : 'enable' });
    },
    onDelete: (key) => setDeleting([key]),
  });
  const updateMissing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'update_key' });
  const deleteMissing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'delete_key' });
  const filtered = Boolean(table.appliedSearch || status);

  return (
    <section aria-labelledby="api-keys-title">
      <h2 id="api-keys-title" className="visually-hidden">
        Keys
      </h2>
      <div className="filters">
        <TableSearch
          id="key-search"
          label="Search keys"
          placeholder="Name, key id, start or identity"
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
        <div className="ml-auto self-end">
          <PermittedButton
            permission={{ resourceType: 'api', resourceId: apiId, action: 'create_key' }}
            className="primary"
            onClick={() => setCreating(true)}
          >
            <Plus size={16} aria-hidden="true" />
            Create key
          </PermittedButton>
        </div>
      </div>
      {status === 'low_credits' ? <p className="hint">{LOW_CREDITS_RULE}</p> : null}
      {selectedKeys.length > 0 ? (
        <div className="bulk-bar" role="toolbar" aria-label="Selected keys">
          <strong>{formatCount(selectedKeys.length, 'key')} selected</strong>
          <button
            type="button"
            className="sm"
            disabled={bulk.isPending || updateMissing !== undefined}
            title={updateMissing}
            onClick={() => {
              setDone(null);
              bulk.mutate({ keys: selectedKeys, action: 'enable' });
            }}
          >
            <Power size={14} aria-hidden="true" />
            Enable
          </button>
          <button
            type="button"
            className="sm"
            disabled={bulk.isPending || updateMissing !== undefined}
            title={updateMissing}
            onClick={() => {
              setDone(null);
              bulk.mutate({ keys: selectedKeys, action: 'disable' });
            }}
          >
            <PowerOff size={14} aria-hidden="true" />
            Disable
          </button>
          <button
            type="button"
            className="sm danger"
            disabled={bulk.isPending || deleteMissing !== undefined}
            title={deleteMissing}
            onClick={() => setDeleting(selectedKeys)}
          >
            <Trash2 size={14} aria-hidden="true" />
            Delete
          </button>
          <button type="button" className="sm ghost" onClick={() => setSelected(new Set())}>
            Clear selection
          </button>
        </div>
      ) : null}
      <p role="status" className="hint">
        {done}
      </p>
      {bulk.error && !deleting ? <ErrorMessage error={bulk.error} /> : null}
      <DataTable
        caption="Keys of this API"
        columns={columns}
        query={keys}
        rows={keys.data?.keys}
        loadingLabel="keys"
        noun={{ one: 'key' }}
        emptyMessage={
          filtered ? (
            'No key matches the search and status. Try part of its name, its id, its first characters or its identity.'
          ) : (
            <EmptyState
              icon={KeyRound}
              title="No keys yet"
              action={
                <PermittedButton
                  permission={{ resourceType: 'api', resourceId: apiId, action: 'create_key' }}
                  className="primary"
                  onClick={() => setCreating(true)}
                >
                  <Plus size={16} aria-hidden="true" />
                  Create the first key
                </PermittedButton>
              }
            >
              <p>
                A key is what your customer sends to your API. Create one, give it to them, and have your API verify it
                on every request: <Link to="/getting-started">the guide</Link> shows how.
              </p>
            </EmptyState>
          )
        }
        rowKey={(key) => key.keyId}
        sorting={table.sorting}
        onSortingChange={table.setSorting}
        paging={{ pageIndex: table.pageIndex, pageSize: PAGE_SIZE, onPageIndexChange: table.setPageIndex }}
        server={{ total: keys.data?.total }}
        sortSelect="always"
        extraSorts={{ createdAt: 'Created' }}
        fixedLayout
        rowAttributes={(key) => ({ 'data-selected': selected.has(key.keyId) ? 'true' : undefined })}
      />
      <CreateKeyDialog apiId={apiId} open={creating} onClose={() => setCreating(false)} />
      <ConfirmDialog
        title={deleting && deleting.length > 1 ? `Delete ${deleting.length} keys` : 'Delete key'}
        open={deleting !== null}
        confirmLabel={deleting && deleting.length > 1 ? `Delete ${deleting.length} keys` : 'Delete key'}
        pending={bulk.isPending}
        error={bulk.error}
        onConfirm={() => deleting && bulk.mutate({ keys: deleting, action: 'delete' })}
        onClose={() => {
          setDeleting(null);
          bulk.reset();
        }}
      >
        <p>
          {deleting?.length === 1 ? (
            <>
              Delete <strong>{deleting[0]?.name ?? deleting[0]?.keyId}</strong>? It stops verifying at once.
            </>
          ) : (
            <>These keys stop verifying at once:</>
          )}
        </p>
        {deleting && deleting.length > 1 ? (
          <ul className="chips mt-2">
            {deleting.map((key) => (
              <li key={key.keyId}>{key.name ?? key.keyId}</li>
            ))}
          </ul>
        ) : null}
      </ConfirmDialog>
    </section>
  );
}

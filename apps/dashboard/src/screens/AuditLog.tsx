import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { CopyButton } from '../components/CopyButton.tsx';
import { DataTable, tableColumns } from '../components/DataTable.tsx';
import { Pager } from '../components/Pager.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { TableSearch } from '../components/TableSearch.tsx';
import { Link } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';
import { useTableUrlState } from '../useTableUrlState.ts';
import { useWholeList } from '../useWholeList.ts';

type AuditEvent = RouterOutputs['audit']['listEvents']['data'][number];

const PAGE_SIZE = 50;

/** What the server takes as an id; anything else is still being typed. */
const RESOURCE_ID = /^[a-zA-Z0-9_]{3,255}$/;

/** The page an id of this kind opens, if it has one. */
function resourcePath(kind: string, id: string, event: AuditEvent): string | undefined {
  if (kind === 'apiId') return `/apis/${id}`;
  if (kind === 'keyId') return event.keyApiId ? `/apis/${event.keyApiId}/keys/${id}` : undefined;
  if (kind === 'identityId') return `/identities/${id}`;
  if (kind === 'namespaceId') return `/ratelimits/${id}`;
  return undefined;
}

function Resources({ event }: { event: AuditEvent }) {
  return (
    <ul className="plain">
      {Object.entries(event.resources).map(([kind, id]) => {
        const path = resourcePath(kind, id, event);
        return (
          <li key={kind}>
            {kind}:{' '}
            {path ? (
              <Link to={path}>
                <code>{id}</code>
              </Link>
            ) : (
              <code>{id}</code>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function auditColumns(rootKeyNames: ReadonlyMap<string, string>) {
  const column = tableColumns<AuditEvent>();
  return column.columns([
    column.accessor('time', { header: 'Time', cell: ({ row }) => <RelativeTime epochMs={row.original.time} /> }),
    column.accessor('event', {
      header: 'Event',
      enableSorting: false,
      cell: ({ row }) => <code>{row.original.event}</code>,
    }),
    column.accessor('rootKeyId', {
      header: 'Root key',
      enableSorting: false,
      cell: ({ row }) => {
        const { rootKeyId } = row.original;
        if (!rootKeyId) return '—';
        return (
          <span className="copyable-id">
            {rootKeyNames.get(rootKeyId) ?? <code>{rootKeyId}</code>}
            <CopyButton value={rootKeyId} />
          </span>
        );
      },
    }),
    column.display({ id: 'resources', header: 'Resources', cell: ({ row }) => <Resources event={row.original} /> }),
  ]);
}

/**
 * Changes to the workspace, newest (or oldest) first, by the root key that made each: filtered by
 * actor, action and resource, and searched, on the server. Filters and pages live in the URL.
 */
export function AuditLog() {
  const table = useTableUrlState({ id: 'time', desc: true });
  const rootKeyId = table.filter('actor');
  const event = table.filter('action');
  const resource = table.filter('resource') ?? '';
  const appliedResource = useDebouncedValue(resource.trim());
  const resourceId = RESOURCE_ID.test(appliedResource) ? appliedResource : undefined;
  const [sort] = table.sorting;
  const events = useQuery({
    ...trpc.audit.listEvents.queryOptions({
      limit: PAGE_SIZE,
      cursor: table.cursorPages.cursor,
      order: sort?.desc === false ? 'oldest' : 'newest',
      rootKeyId,
      event,
      resourceId,
      search: table.appliedSearch,
    }),
    placeholderData: keepPreviousData,
  });
  const rootKeys = useWholeList(trpc.rootKeys.listRootKeys, {});
  const eventNames = useQuery(trpc.audit.listEventNames.queryOptions());
  const rootKeyNames = useMemo(
    () => new Map((rootKeys.data?.rows ?? []).map((rootKey) => [rootKey.rootKeyId, rootKey.name ?? rootKey.rootKeyId])),
    [rootKeys.data],
  );
  const columns = useMemo(() => auditColumns(rootKeyNames), [rootKeyNames]);
  const filtered = Boolean(rootKeyId || event || resourceId || table.appliedSearch);

  return (
    <>
      <h1 tabIndex={-1}>Audit log</h1>
      <div className="filters">
        <TableSearch
          id="audit-search"
          label="Search events"
          placeholder="Event or resource id"
          value={table.search}
          onChange={table.setSearch}
        />
        <div className="field">
          <label htmlFor="audit-actor">Root key</label>
          <select
            id="audit-actor"
            value={rootKeyId ?? ''}
            onChange={(change) => table.setFilter('actor', change.target.value || undefined)}
          >
            <option value="">Any root key</option>
            {rootKeys.data?.rows.map((rootKey) => (
              <option key={rootKey.rootKeyId} value={rootKey.rootKeyId}>
                {rootKey.name ?? rootKey.rootKeyId}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-action">Action</label>
          <select
            id="audit-action"
            value={event ?? ''}
            onChange={(change) => table.setFilter('action', change.target.value || undefined)}
          >
            <option value="">Any action</option>
            {eventNames.data?.events.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-resource">Resource id</label>
          <input
            id="audit-resource"
            type="search"
            placeholder="api_…, key_…, identity id"
            value={resource}
            aria-describedby="audit-resource-hint"
            onChange={(change) => table.setFilter('resource', change.target.value, { replace: true })}
          />
        </div>
      </div>
      <p id="audit-resource-hint" className="hint">
        {resource.trim() && !RESOURCE_ID.test(resource.trim())
          ? 'A resource id is at least 3 letters, digits or underscores; the filter waits for one.'
          : 'Resource ids link to their page; filter by one to see its whole history.'}
      </p>
      <DataTable
        caption={`Audit events, ${sort?.desc === false ? 'oldest' : 'newest'} first`}
        columns={columns}
        query={events}
        rows={events.data?.data}
        loadingLabel="audit events"
        noun={{ one: 'event' }}
        emptyMessage={
          filtered
            ? 'No change matches these filters.'
            : 'No changes recorded yet. Changes made here or through the API appear as they happen.'
        }
        rowKey={(auditEvent) => auditEvent.id}
        sorting={table.sorting}
        onSortingChange={table.setSorting}
        server={{ total: events.data?.total }}
      />
      <Pager pages={table.cursorPages} nextCursor={events.data?.pagination.cursor} label="Audit log" />
    </>
  );
}

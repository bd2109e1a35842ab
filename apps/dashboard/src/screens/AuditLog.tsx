import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { Download } from 'lucide-react';
import { type ReactNode, useMemo } from 'react';
import {
  type AuditEventFacts,
  auditActorId,
  auditActorName,
  auditChanges,
  auditPredicate,
  auditSentence,
} from '../auditSentences.ts';
import { DataTable, tableColumns } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Pager } from '../components/Pager.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { TableSearch } from '../components/TableSearch.tsx';
import { formatCount, formatTimeSeconds } from '../format.ts';
import { Link } from '../router.tsx';
import { type RouterOutputs, trpc, trpcClient } from '../trpc.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';
import { useTableUrlState } from '../useTableUrlState.ts';
import { useWholeList } from '../useWholeList.ts';

type AuditEvent = RouterOutputs['audit']['listEvents']['data'][number];

const PAGE_SIZE = 50;
/** The most events one export holds: past it, narrow the filters. */
const EXPORT_MAX = 10_000;

/** What the server takes as an id; anything else is still being typed. */
const RESOURCE_ID = /^[a-zA-Z0-9_]{3,255}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A `YYYY-MM-DD` of a date input as the start of that day in the reader's zone, in epoch ms. */
function startOfDay(day: string | undefined): number | undefined {
  if (!day || !DAY.test(day)) return undefined;
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number);
  return new Date(year, month - 1, date).getTime();
}

/** The page an id of this kind opens, if it has one. */
function resourcePath(kind: string, id: string, event: AuditEvent): string | undefined {
  if (kind === 'apiId') return `/apis/${id}`;
  if (kind === 'keyId') return event.keyApiId ? `/apis/${event.keyApiId}/keys/${id}` : undefined;
  if (kind === 'identityId') return `/identities/${id}`;
  if (kind === 'namespaceId') return `/ratelimits/${id}`;
  if (kind === 'endpointId') return `/webhooks/${id}`;
  return undefined;
}

function Resources({ event }: { event: AuditEvent }) {
  const entries = Object.entries(event.resources);
  if (entries.length === 0) return null;
  return (
    <ul className="chips mt-1">
      {entries.map(([kind, id]) => {
        const path = resourcePath(kind, id, event);
        return (
          <li key={kind} title={kind}>
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

/** The entry as a sentence, then each setting it changed, before and after. */
function WhatHappened({ event, actor }: { event: AuditEvent; actor: string }) {
  const facts: AuditEventFacts = event;
  const changes = auditChanges(facts);
  return (
    <div className="min-w-0">
      <p className="audit-sentence m-0" data-event={event.event}>
        <strong>{actor}</strong> {auditPredicate(facts)}
        {changes.length === 0 ? '.' : ':'}
      </p>
      {changes.length > 0 ? (
        <ul className="audit-changes">
          {changes.map((change) => (
            <li key={change.field}>
              <span className="text-muted">{change.label}</span> <del className="audit-before">{change.before}</del>{' '}
              <span aria-hidden="true">→</span>
              <span className="visually-hidden"> changed to </span> <ins className="audit-after">{change.after}</ins>
            </li>
          ))}
        </ul>
      ) : null}
      <p className="text-xs text-muted m-0">
        <code>{event.event}</code>
      </p>
      <Resources event={event} />
    </div>
  );
}

function auditColumns(actorName: (event: AuditEvent) => string) {
  const column = tableColumns<AuditEvent>();
  return column.columns([
    column.accessor('time', {
      header: 'Time',
      meta: { width: '13.5rem' },
      cell: ({ row }) => (
        <span className="flex flex-col leading-tight">
          <RelativeTime epochMs={row.original.time} />
          <span className="text-xs text-muted">{formatTimeSeconds(row.original.time)}</span>
        </span>
      ),
    }),
    column.display({
      id: 'what',
      header: 'What happened',
      meta: { rowHeader: true },
      cell: ({ row }) => <WhatHappened event={row.original} actor={actorName(row.original)} />,
    }),
    column.display({
      id: 'actor',
      header: 'Actor',
      meta: { width: '13rem' },
      cell: ({ row }) => {
        const { actor, clientAddress } = row.original;
        return (
          <span className="flex flex-col leading-tight">
            <span title={auditActorId(actor)} className="audit-actor" data-actor={actor.type}>
              {actorName(row.original)}
            </span>
            <span className="text-xs text-muted">
              {clientAddress ? `from ${clientAddress}` : 'address not recorded'}
            </span>
          </span>
        );
      },
    }),
  ]);
}

/** A CSV field: quoted, quotes doubled, so commas and line breaks stay inside it. */
const csvField = (value: string) => `"${value.replaceAll('"', '""')}"`;

/**
 * Changes to the workspace, newest (or oldest) first, each as a sentence (who did what to what,
 * with each setting before and after) by the person or root key that made it, from where: filtered
 * by person, root key, action, resource and date range, searched, and exported as CSV. Filters and
 * pages live in the URL.
 */
export function AuditLog() {
  useDocumentTitle('Audit log');
  const table = useTableUrlState({ id: 'time', desc: true });
  const rootKeyId = table.filter('actor');
  const userId = table.filter('person');
  const event = table.filter('action');
  const resource = table.filter('resource') ?? '';
  const fromDay = table.filter('from');
  const toDay = table.filter('to');
  const appliedResource = useDebouncedValue(resource.trim());
  const resourceId = RESOURCE_ID.test(appliedResource) ? appliedResource : undefined;
  const from = startOfDay(fromDay);
  // The last day chosen is included: up to the start of the next.
  const toStart = startOfDay(toDay);
  const to = toStart === undefined ? undefined : toStart + 86_400_000;
  const [sort] = table.sorting;
  const filters = { rootKeyId, userId, event, resourceId, search: table.appliedSearch, from, to };
  const events = useQuery({
    ...trpc.audit.listEvents.queryOptions({
      limit: PAGE_SIZE,
      cursor: table.cursorPages.cursor,
      order: sort?.desc === false ? 'oldest' : 'newest',
      ...filters,
    }),
    placeholderData: keepPreviousData,
  });
  const rootKeys = useWholeList(trpc.rootKeys.listRootKeys, {});
  const eventNames = useQuery(trpc.audit.listEventNames.queryOptions());
  const rootKeyNames = useMemo(
    () => new Map((rootKeys.data?.rows ?? []).map((rootKey) => [rootKey.rootKeyId, rootKey.name ?? rootKey.rootKeyId])),
    [rootKeys.data],
  );
  const actorName = (auditEvent: AuditEvent) => auditActorName(auditEvent.actor, rootKeyNames);
  const columns = useMemo(
    () => auditColumns((auditEvent) => auditActorName(auditEvent.actor, rootKeyNames)),
    [rootKeyNames],
  );
  const filtered = Boolean(rootKeyId || userId || event || resourceId || table.appliedSearch || from || to);

  /** Every event the filters keep (up to EXPORT_MAX), oldest first, as a CSV download. */
  const exportCsv = useMutation({
    mutationFn: async () => {
      const rows: AuditEvent[] = [];
      let cursor: string | undefined;
      do {
        const page = await trpcClient.audit.listEvents.query({ ...filters, order: 'oldest', limit: 100, cursor });
        rows.push(...page.data);
        cursor = page.pagination.cursor;
      } while (cursor !== undefined && rows.length < EXPORT_MAX);
      const header = [
        'time',
        'actor',
        'actor_root_key_id',
        'actor_user_id',
        'client_address',
        'event',
        'description',
        'changes',
        'resources',
      ];
      const lines = rows.map((row) =>
        [
          new Date(row.time).toISOString(),
          actorName(row),
          row.rootKeyId ?? '',
          row.actor.type === 'person' ? row.actor.userId : '',
          row.clientAddress ?? '',
          row.event,
          auditSentence(actorName(row), row),
          auditChanges(row)
            .map((change) => `${change.label}: ${change.before} -> ${change.after}`)
            .join('; '),
          Object.entries(row.resources)
            .map(([kind, id]) => `${kind}=${id}`)
            .join('; '),
        ]
          .map(csvField)
          .join(','),
      );
      const blob = new Blob([`${[header.join(','), ...lines].join('\r\n')}\r\n`], { type: 'text/csv;charset=utf-8' });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `keyplane-audit-${new Date().toISOString().slice(0, 10)}.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
      return { count: rows.length, complete: cursor === undefined };
    },
  });

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Audit log</h1>
        <button type="button" onClick={() => exportCsv.mutate()} disabled={exportCsv.isPending}>
          <Download size={16} aria-hidden="true" />
          {exportCsv.isPending ? 'Exporting…' : 'Export CSV'}
        </button>
      </div>
      <p className="page-intro">
        Every change made to this workspace, through the dashboard, the API or the CLI: who made it, from where, and
        what it changed.
      </p>
      <p role="status" className="hint">
        {exportCsv.data
          ? `Exported ${formatCount(exportCsv.data.count, 'event')}${exportCsv.data.complete ? '' : ` (the first ${EXPORT_MAX}: narrow the filters for the rest)`}.`
          : null}
      </p>
      {exportCsv.error ? <ErrorMessage error={exportCsv.error} /> : null}
      <div className="filters">
        <TableSearch
          id="audit-search"
          label="Search events"
          placeholder="Event or resource id"
          value={table.search}
          onChange={table.setSearch}
        />
        <Field id="audit-person" label="Person">
          <select
            id="audit-person"
            value={userId ?? ''}
            onChange={(change) => table.setFilter('person', change.target.value || undefined)}
          >
            <option value="">Anyone</option>
            {eventNames.data?.people.map((person) => (
              <option key={person.userId} value={person.userId}>
                {person.email}
              </option>
            ))}
          </select>
        </Field>
        <Field id="audit-actor" label="Root key">
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
        </Field>
        <Field id="audit-action" label="Action">
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
        </Field>
        <Field id="audit-resource" label="Resource id">
          <input
            id="audit-resource"
            type="search"
            placeholder="api_…, key_…, identity id"
            value={resource}
            aria-describedby="audit-resource-hint"
            onChange={(change) => table.setFilter('resource', change.target.value, { replace: true })}
          />
        </Field>
        <Field id="audit-from" label="From">
          <input
            id="audit-from"
            type="date"
            value={fromDay ?? ''}
            max={toDay}
            onChange={(change) => table.setFilter('from', change.target.value || undefined)}
          />
        </Field>
        <Field id="audit-to" label="To (included)">
          <input
            id="audit-to"
            type="date"
            value={toDay ?? ''}
            min={fromDay}
            onChange={(change) => table.setFilter('to', change.target.value || undefined)}
          />
        </Field>
      </div>
      <p id="audit-resource-hint" className="hint">
        {resource.trim() && !RESOURCE_ID.test(resource.trim())
          ? 'A resource id is at least 3 letters, digits or underscores; the filter waits for one.'
          : 'Resource ids link to their page; filter by one to see its whole history. Days are in your time zone.'}
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
        fixedLayout
      />
      <Pager pages={table.cursorPages} nextCursor={events.data?.pagination.cursor} label="Audit log" />
    </>
  );
}

function Field({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  );
}

import type { PermissionTuple } from '@keyplane/core/rules';
import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import { X } from 'lucide-react';
import { type ReactNode, useEffect, useId, useMemo, useState } from 'react';
import { useMissingAnyGrant, useMissingPermission, useMissingPermissionCheck } from '../access.ts';
import { verificationsQueryOptions } from '../analytics.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { OutcomeBadge } from '../components/OutcomeBadge.tsx';
import { type PickerItem, SearchSelect } from '../components/SearchSelect.tsx';
import { LoadingStatus, TableSkeletonRows } from '../components/Skeleton.tsx';
import { TimeRangeControls, type TimeWindow, useTimeWindow } from '../components/TimeRangeControls.tsx';
import {
  ChartPanel,
  creditSummary,
  decisionSummary,
  outcomeSummary,
  useDecisionSeries,
  useVerificationSeries,
} from '../components/UsageCharts.tsx';
import { formatCompactNumber, formatNumber, formatTimeSeconds } from '../format.ts';
import { OUTCOMES } from '../outcomes.ts';
import { Link, navigateSearch, useSearch } from '../router.tsx';
import { trpc } from '../trpc.ts';
import {
  breakdownQuery,
  LOG_SEARCH_PATTERN,
  type LogCursor,
  toCount,
  type VerificationFilters,
  verificationLogQuery,
} from '../usageQueries.ts';
import { seriesTotal } from '../usageSeries.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';

/** The URL's query parameters for each filter: a reload, Back or a link keeps them. */
const FILTER_PARAMS = {
  apiId: 'api',
  keyId: 'key',
  identityId: 'identity',
  outcome: 'outcome',
  tag: 'tag',
} as const satisfies Record<keyof VerificationFilters, string>;

const ID = /^[a-zA-Z0-9_]+$/;

/** The filters the URL holds, those that could not be valid left out. */
function filtersOf(params: URLSearchParams): VerificationFilters {
  const id = (name: string) => {
    const value = params.get(name) ?? '';
    return ID.test(value) ? value : undefined;
  };
  const outcome = params.get(FILTER_PARAMS.outcome) ?? '';
  const tag = params.get(FILTER_PARAMS.tag)?.trim();
  return {
    apiId: id(FILTER_PARAMS.apiId),
    keyId: id(FILTER_PARAMS.keyId),
    identityId: id(FILTER_PARAMS.identityId),
    outcome: outcome in OUTCOMES ? outcome : undefined,
    tag: tag && tag.length <= 512 ? tag : undefined,
  };
}

/** Sets (or, for undefined, removes) URL parameters; typing replaces the entry, a pick adds one. */
function setParams(changes: Record<string, string | undefined>, options: { replace?: boolean } = {}): void {
  const params = new URLSearchParams(window.location.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === '') params.delete(name);
    else params.set(name, value);
  }
  navigateSearch(params, options);
}

/**
 * The workspace's traffic: verifications by outcome, credits, rate-limit decisions, who verifies
 * most and fails most (keys, identities, tags), and the verifications themselves. Every filter
 * applies as it is picked and lives in the URL with the time range, so a link (an API's "See all
 * usage", a key's "Every verification") opens on the same view, and a reload keeps it.
 */
export function Usage() {
  const params = new URLSearchParams(useSearch());
  const filters = filtersOf(params);
  const timeWindow = useTimeWindow('day', [], { inUrl: true });
  // A panel the root key may not read says so instead of asking for a 403.
  const verificationsMissing = useMissingAnyGrant('api', 'read_analytics');
  const ratelimitsMissing = useMissingAnyGrant('ratelimit', 'read_analytics');
  const verifications = useVerificationSeries(timeWindow, filters, verificationsMissing);
  const ratelimits = useDecisionSeries(timeWindow, undefined, ratelimitsMissing);
  const applied = Object.values(filters).filter(Boolean).length;
  useDocumentTitle('Usage');

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Usage</h1>
      </div>
      <TimeRangeControls timeWindow={timeWindow} />
      <FilterDisclosure label={applied > 0 ? `Filters (${applied} applied)` : 'Filters'}>
        <VerificationFilterForm filters={filters} />
      </FilterDisclosure>

      {verificationsMissing ? null : <Totals series={verifications} />}
      <ChartPanel
        title="Verifications by outcome"
        query={verifications.query}
        timeWindow={timeWindow}
        series={verifications.outcomes}
        summary={outcomeSummary(verifications.outcomes)}
        missing={verificationsMissing}
      />
      {verificationsMissing ? null : <Breakdowns timeWindow={timeWindow} filters={filters} />}
      <div className="grid">
        <ChartPanel
          title="Credits spent"
          query={verifications.query}
          timeWindow={timeWindow}
          series={verifications.credits}
          summary={creditSummary(verifications.credits)}
          failureNote="Not available: the verifications did not load (see above)."
          missing={verificationsMissing}
        />
        <ChartPanel
          title="Rate-limit decisions"
          query={ratelimits.query}
          timeWindow={timeWindow}
          series={ratelimits.decisions}
          summary={decisionSummary(ratelimits.decisions)}
          missing={ratelimitsMissing}
          note={
            applied > 0
              ? 'Not filtered: rate-limit decisions belong to namespaces, not to an API, key or identity, so this chart shows the whole workspace.'
              : undefined
          }
        />
      </div>
      {verificationsMissing ? null : <VerificationLog timeWindow={timeWindow} filters={filters} />}
    </>
  );
}

/** The range's numbers at a glance. */
function Totals({ series }: { series: ReturnType<typeof useVerificationSeries> }) {
  if (!series.query.data) return null;
  const total = seriesTotal(series.outcomes);
  const valid = seriesTotal(series.outcomes.filter((line) => line.key === 'VALID'));
  const limited = seriesTotal(series.outcomes.filter((line) => line.key === 'RATE_LIMITED'));
  const stats: [string, string][] = [
    ['Verifications', formatNumber(total)],
    ['Valid', total === 0 ? '—' : `${((valid / total) * 100).toFixed(1)}%`],
    ['Refused', formatNumber(total - valid)],
    ['Rate limited', formatNumber(limited)],
    ['Credits spent', formatNumber(seriesTotal(series.credits))],
  ];
  return (
    <dl className="stat-row" aria-label="Totals of the range">
      {stats.map(([label, value]) => (
        <div key={label} className="stat">
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Wide screens have room for the filters; a phone starts with them folded under one line. */
const FILTERS_OPEN_AT = '(min-width: 40.01rem)';

function FilterDisclosure({ label, children }: { label: string; children: ReactNode }) {
  const [open, setOpen] = useState(() => window.matchMedia(FILTERS_OPEN_AT).matches);
  return (
    <details className="filter-disclosure" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{label}</summary>
      {children}
    </details>
  );
}

const PICKER_PAGE_SIZE = 20;

/**
 * API, key, identity, outcome and tag, each applied as it is picked (the tag once typing pauses).
 * Keys and identities are found by server-side search; a pick named only by the URL is looked up
 * for its name.
 */
function VerificationFilterForm({ filters }: { filters: VerificationFilters }) {
  const apis = useQuery(trpc.apis.listApis.queryOptions({ limit: 100 }));
  const apiId = filters.apiId ?? '';
  const [keySearch, setKeySearch] = useState('');
  const [identitySearch, setIdentitySearch] = useState('');
  const debouncedKeySearch = useDebouncedValue(keySearch.trim());
  const debouncedIdentitySearch = useDebouncedValue(identitySearch.trim());
  const keysUnavailable = useKeysUnavailable(apiId, apis.data?.data ?? []);
  const [tag, setTag] = useState(filters.tag ?? '');
  const appliedTag = useDebouncedValue(tag.trim());
  useEffect(() => {
    if (appliedTag !== (new URLSearchParams(window.location.search).get(FILTER_PARAMS.tag) ?? '')) {
      setParams({ [FILTER_PARAMS.tag]: appliedTag || undefined }, { replace: true });
    }
  }, [appliedTag]);

  const keys = useQuery({
    ...trpc.apis.listKeys.queryOptions({
      apiId,
      limit: PICKER_PAGE_SIZE,
      search: debouncedKeySearch || undefined,
    }),
    // Keys are listed per API, and only of an API whose keys the root key may read.
    enabled: keysUnavailable === undefined,
    placeholderData: keepPreviousData,
    select: (page) => ({
      items: page.data.map((item) => ({ id: item.keyId, label: `${item.name ?? item.keyId} (${item.start}…)` })),
      hasMore: page.pagination.hasMore,
    }),
  });
  // Listing checks read_identity on each identity of the page: only the wildcard is sure to pass.
  const identitiesMissing = useMissingPermission({
    resourceType: 'identity',
    resourceId: '*',
    action: 'read_identity',
  });
  const identities = useQuery({
    ...trpc.identities.listIdentities.queryOptions({
      limit: PICKER_PAGE_SIZE,
      search: debouncedIdentitySearch || undefined,
    }),
    enabled: identitiesMissing === undefined,
    placeholderData: keepPreviousData,
    select: (page) => ({
      items: page.data.map((item) => ({ id: item.id, label: item.externalId })),
      hasMore: page.pagination.hasMore,
    }),
  });
  const pickedKey = usePickedKey(filters.keyId, keysUnavailable === undefined);
  const pickedIdentity = usePickedIdentity(filters.identityId, identitiesMissing === undefined);
  const any = Object.values(filters).some(Boolean);

  return (
    <div className="usage-filters">
      <div className="field">
        <label htmlFor="usage-api">API</label>
        <select
          id="usage-api"
          value={apiId}
          onChange={(event) => {
            setKeySearch('');
            // A key belongs to one API: a pick from another would filter everything out.
            setParams({ [FILTER_PARAMS.apiId]: event.target.value || undefined, [FILTER_PARAMS.keyId]: undefined });
          }}
          aria-describedby="usage-api-status"
        >
          <option value="">All APIs</option>
          {apis.data?.data.map((api) => (
            <option key={api.id} value={api.id}>
              {api.name}
            </option>
          ))}
          {/* An API named by the URL that the list does not hold (or not yet) stays chosen. */}
          {apiId && apis.data && !apis.data.data.some((api) => api.id === apiId) ? (
            <option value={apiId}>{apiId}</option>
          ) : null}
        </select>
        <p id="usage-api-status" className="hint" aria-live="polite">
          {apis.isPending ? 'Loading APIs…' : null}
          {apis.data?.data.length === 0 ? 'No APIs yet.' : null}
        </p>
        {apis.error ? <ErrorMessage error={apis.error} onRetry={() => void apis.refetch()} /> : null}
      </div>
      <SearchSelect
        label="Key"
        noun="keys"
        anyLabel="All keys"
        selected={pickedKey}
        onSelect={(item) => setParams({ [FILTER_PARAMS.keyId]: item?.id })}
        search={keySearch}
        onSearchChange={setKeySearch}
        matches={keys}
        unavailable={keysUnavailable}
      />
      <SearchSelect
        label="Identity"
        noun="identities"
        anyLabel="All identities"
        selected={pickedIdentity}
        onSelect={(item) => setParams({ [FILTER_PARAMS.identityId]: item?.id })}
        search={identitySearch}
        onSearchChange={setIdentitySearch}
        matches={identities}
        unavailable={identitiesMissing}
      />
      <div className="field">
        <label htmlFor="usage-outcome">Outcome</label>
        <select
          id="usage-outcome"
          value={filters.outcome ?? ''}
          onChange={(event) => setParams({ [FILTER_PARAMS.outcome]: event.target.value || undefined })}
        >
          <option value="">Any outcome</option>
          {Object.entries(OUTCOMES).map(([code, style]) => (
            <option key={code} value={code}>
              {style.label}
            </option>
          ))}
        </select>
        <p className="hint">&nbsp;</p>
      </div>
      <div className="field">
        <label htmlFor="usage-tag">Tag</label>
        <input
          id="usage-tag"
          type="search"
          placeholder="path=/v1/charges"
          value={tag}
          maxLength={512}
          onChange={(event) => setTag(event.target.value)}
        />
        <p className="hint">Exactly, as verifications send it.</p>
      </div>
      {any ? (
        <div className="field">
          <button
            type="button"
            onClick={() => {
              setTag('');
              setParams(Object.fromEntries(Object.values(FILTER_PARAMS).map((name) => [name, undefined])));
            }}
          >
            <X size={14} aria-hidden="true" />
            Clear filters
          </button>
          <p className="hint">&nbsp;</p>
        </div>
      ) : null}
    </div>
  );
}

/** The key the URL names, with its name for the picker. */
function usePickedKey(keyId: string | undefined, enabled: boolean): PickerItem | null {
  const key = useQuery({
    ...trpc.keys.getKey.queryOptions({ keyId: keyId ?? '' }, { staleTime: 60_000, retry: false }),
    enabled: keyId !== undefined && enabled,
  });
  if (!keyId) return null;
  return { id: keyId, label: key.data ? `${key.data.name ?? keyId} (${key.data.start}…)` : keyId };
}

/** The identity the URL names, with its external id for the picker. */
function usePickedIdentity(identityId: string | undefined, enabled: boolean): PickerItem | null {
  const identity = useQuery({
    ...trpc.identities.getIdentity.queryOptions({ identity: identityId ?? '' }, { staleTime: 60_000, retry: false }),
    enabled: identityId !== undefined && enabled,
  });
  if (!identityId) return null;
  return { id: identityId, label: identity.data?.externalId ?? identityId };
}

/**
 * Why the key picker cannot list keys, if it cannot: keys are listed per API, and only for an API
 * whose keys the root key may read (`read_key`), which the reason names.
 */
function useKeysUnavailable(apiId: string, apis: readonly { id: string; name: string }[]): string | undefined {
  const missingFor = useMissingPermissionCheck();
  const missingAnywhere = useMissingAnyGrant('api', 'read_key');
  if (missingAnywhere) return missingAnywhere;
  const readKey = (id: string): PermissionTuple => ({ resourceType: 'api', resourceId: id, action: 'read_key' });
  if (apiId !== '') {
    const missing = missingFor(readKey(apiId));
    const name = apis.find((api) => api.id === apiId)?.name ?? apiId;
    return missing ? `${missing} Keys of ${name} cannot be picked.` : undefined;
  }
  const unreadable = apis.filter((api) => missingFor(readKey(api.id)) !== undefined).map((api) => api.name);
  return unreadable.length === 0
    ? 'Choose an API to pick one of its keys.'
    : `Choose an API to pick one of its keys; not ${unreadable.join(' or ')}, whose keys your root key may not read (read_key).`;
}

interface BreakdownRow {
  value: string;
  label: string | null;
  total: number;
  failed: number;
}

type Dimension = 'key' | 'identity' | 'tag';
const BY_PARAM = 'by';

/**
 * Names of keys by id, read one by one (in one batch), only of the APIs whose keys the root key
 * may read (`read_key`): the others stay ids, and are never asked for.
 */
function useKeyNames(keys: readonly { keyId: string; apiId: string }[]): ReadonlyMap<string, string> {
  const missingFor = useMissingPermissionCheck();
  const readable = [...new Map(keys.map((key) => [key.keyId, key])).values()].filter(
    ({ apiId }) => missingFor({ resourceType: 'api', resourceId: apiId, action: 'read_key' }) === undefined,
  );
  const found = useQueries({
    queries: readable.map(({ keyId }) => ({
      ...trpc.keys.getKey.queryOptions({ keyId }, { staleTime: 5 * 60_000, retry: false }),
    })),
  });
  return new Map(
    readable.flatMap(({ keyId }, index) => {
      const data = found[index]?.data;
      return data ? [[keyId, data.name ?? keyId] as const] : [];
    }),
  );
}

/**
 * The range's leaders: keys, identities and tags by verifications or by failures (every outcome but
 * valid), in one analytics query. Each names what it counts and leads to it.
 */
function Breakdowns({ timeWindow, filters }: { timeWindow: TimeWindow; filters: VerificationFilters }) {
  const by = new URLSearchParams(useSearch()).get(BY_PARAM) === 'failures' ? 'failed' : 'total';
  const query = useQuery({
    ...verificationsQueryOptions(breakdownQuery(timeWindow.range, timeWindow.from, filters)),
    placeholderData: keepPreviousData,
  });
  const rows = useMemo(() => {
    const grouped = new Map<Dimension, Map<string, BreakdownRow>>();
    for (const row of query.data ?? []) {
      const dimension = String(row.dimension) as Dimension;
      const entries = grouped.get(dimension) ?? new Map<string, BreakdownRow>();
      const value = String(row.value);
      entries.set(value, {
        value,
        label: row.label === null || row.label === undefined ? null : String(row.label),
        total: toCount(row.total),
        failed: toCount(row.failed),
      });
      grouped.set(dimension, entries);
    }
    const top = (dimension: Dimension) =>
      [...(grouped.get(dimension)?.values() ?? [])]
        .filter((row) => row[by] > 0)
        .sort((a, b) => b[by] - a[by] || a.value.localeCompare(b.value))
        .slice(0, 10);
    return { key: top('key'), identity: top('identity'), tag: top('tag') };
  }, [query.data, by]);
  const keyNames = useKeyNames(rows.key.map((row) => ({ keyId: row.value, apiId: row.label ?? '' })));
  const id = useId();

  return (
    <section className="panel" aria-labelledby={id}>
      <div className="page-header">
        <h2 id={id}>Top keys, identities and tags</h2>
        <fieldset className="plain actions flex-row">
          <legend className="visually-hidden">Order by</legend>
          {(['total', 'failed'] as const).map((order) => (
            <button
              key={order}
              type="button"
              className={by === order ? 'sm primary' : 'sm'}
              aria-pressed={by === order}
              onClick={() => setParams({ [BY_PARAM]: order === 'failed' ? 'failures' : undefined })}
            >
              By {order === 'total' ? 'verifications' : 'failures'}
            </button>
          ))}
        </fieldset>
      </div>
      {query.error ? <ErrorMessage error={query.error} onRetry={() => void query.refetch()} /> : null}
      <div className="breakdowns">
        <BreakdownTable
          title="Top keys"
          rows={rows.key}
          by={by}
          loading={query.isPending}
          render={(row) => (
            <Link to={`/apis/${row.label}/keys/${row.value}`} title={row.value}>
              {keyNames.get(row.value) ?? row.value}
            </Link>
          )}
        />
        <BreakdownTable
          title="Top identities"
          rows={rows.identity}
          by={by}
          loading={query.isPending}
          render={(row) => <Link to={`/identities/${row.value}`}>{row.label ?? row.value}</Link>}
        />
        <BreakdownTable
          title="Top tags"
          rows={rows.tag}
          by={by}
          loading={query.isPending}
          render={(row) => (
            <button
              type="button"
              className="link"
              title="Show only verifications with this tag"
              onClick={() => setParams({ [FILTER_PARAMS.tag]: row.value })}
            >
              <code>{row.value}</code>
            </button>
          )}
        />
      </div>
    </section>
  );
}

interface BreakdownTableProps {
  title: string;
  rows: BreakdownRow[];
  by: 'total' | 'failed';
  loading: boolean;
  render: (row: BreakdownRow) => ReactNode;
}

function BreakdownTable({ title, rows, by, loading, render }: BreakdownTableProps) {
  const most = Math.max(1, ...rows.map((row) => row[by]));
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">
          {title} by {by === 'total' ? 'verifications' : 'failures'}
        </caption>
        <thead>
          <tr>
            <th scope="col">{title}</th>
            <th scope="col" className="text-right">
              Verifications
            </th>
            <th scope="col" className="text-right">
              Failures
            </th>
          </tr>
        </thead>
        <tbody>
          {loading ? <TableSkeletonRows columns={3} rows={5} /> : null}
          {!loading && rows.length === 0 ? (
            <tr>
              <td colSpan={3} className="text-muted">
                None in this range.
              </td>
            </tr>
          ) : null}
          {rows.map((row) => (
            <tr key={row.value}>
              <th scope="row" className="bar-cell max-w-48 truncate">
                <span className="bar" style={{ width: `${(row[by] / most) * 100}%` }} aria-hidden="true" />
                <span>{render(row)}</span>
              </th>
              <td className="text-right tabular-nums">{formatCompactNumber(row.total)}</td>
              <td className="text-right tabular-nums">{formatCompactNumber(row.failed)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const LOG_PAGE_SIZE = 50;
const LOG_SEARCH_PARAM = 'q';

/**
 * Every verification of the range, newest first, filtered as the charts are and searched (request
 * id, key id, external id or a tag), 50 at a time: "Older" goes on from the last one shown.
 */
function VerificationLog({ timeWindow, filters }: { timeWindow: TimeWindow; filters: VerificationFilters }) {
  const id = useId();
  const params = new URLSearchParams(useSearch());
  const [search, setSearch] = useState(params.get(LOG_SEARCH_PARAM) ?? '');
  const appliedSearch = useDebouncedValue(search.trim());
  const searchValid = LOG_SEARCH_PATTERN.test(appliedSearch);
  useEffect(() => {
    if (appliedSearch !== (new URLSearchParams(window.location.search).get(LOG_SEARCH_PARAM) ?? '')) {
      setParams({ [LOG_SEARCH_PARAM]: appliedSearch || undefined }, { replace: true });
    }
  }, [appliedSearch]);
  // The pages walked so far: each the cursor it started after (none for the newest).
  const [trail, setTrail] = useState<LogCursor[]>([]);
  const scope = JSON.stringify([filters, appliedSearch, timeWindow.from]);
  const [trailScope, setTrailScope] = useState(scope);
  if (trailScope !== scope) {
    setTrailScope(scope);
    setTrail([]);
  }
  const before = trail.at(-1);
  const log = useQuery({
    ...verificationsQueryOptions(
      verificationLogQuery(timeWindow.from, filters, {
        search: searchValid ? appliedSearch : undefined,
        before,
        limit: LOG_PAGE_SIZE + 1,
      }),
    ),
    enabled: searchValid,
    placeholderData: keepPreviousData,
  });
  const rows = (log.data ?? []).slice(0, LOG_PAGE_SIZE);
  const hasOlder = (log.data?.length ?? 0) > LOG_PAGE_SIZE;
  // Opened by a link to the log itself (a key's "Every verification"): brought into view once it shows.
  const loaded = log.data !== undefined;
  useEffect(() => {
    if (loaded && window.location.hash === '#verification-log') {
      document.getElementById('verification-log')?.scrollIntoView({ block: 'start' });
    }
  }, [loaded]);
  const keyNames = useKeyNames(rows.map((row) => ({ keyId: String(row.key_id), apiId: String(row.api_id) })));

  return (
    <section className="panel" aria-labelledby={id} id="verification-log">
      <div className="page-header">
        <h2 id={id}>Verifications</h2>
        <search className="field">
          <label htmlFor={`${id}-search`} className="visually-hidden">
            Search verifications
          </label>
          <input
            id={`${id}-search`}
            type="search"
            className="w-72 max-w-full"
            placeholder="Request id, key id, external id or tag"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            aria-invalid={!searchValid}
            aria-describedby={`${id}-search-hint`}
          />
        </search>
      </div>
      <p id={`${id}-search-hint`} className="hint">
        {searchValid
          ? `Newest first, with the filters above, ${LOG_PAGE_SIZE} at a time.`
          : 'Search for letters, digits and _ . = / : @ - only: ids, tags and external ids hold nothing else.'}
      </p>
      {log.error ? <ErrorMessage error={log.error} onRetry={() => void log.refetch()} /> : null}
      {log.isPending && searchValid ? <LoadingStatus label="verifications" /> : null}
      <div className="table-wrap cards">
        <table>
          <caption className="visually-hidden">Verifications of the range, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Outcome</th>
              <th scope="col">Key</th>
              <th scope="col">Identity</th>
              <th scope="col">Tags</th>
              <th scope="col" className="text-right">
                Credits
              </th>
            </tr>
          </thead>
          <tbody>
            {log.isPending && searchValid ? <TableSkeletonRows columns={6} /> : null}
            {log.data && rows.length === 0 ? (
              <tr>
                <td colSpan={6} data-phone="bare">
                  No verification matches the filters and search in this range.
                </td>
              </tr>
            ) : null}
            {rows.map((row) => {
              const keyId = String(row.key_id ?? '');
              const tags = Array.isArray(row.tags) ? row.tags.map(String) : [];
              return (
                <tr key={String(row.request_id)}>
                  <th scope="row" className="sm:whitespace-nowrap">
                    <span title={String(row.request_id)}>{formatTimeSeconds(toCount(row.time))}</span>
                  </th>
                  <td data-label="Outcome" data-phone="badge">
                    <OutcomeBadge outcome={String(row.outcome)} />
                  </td>
                  <td data-label="Key">
                    {keyId ? (
                      <Link to={`/apis/${String(row.api_id)}/keys/${keyId}`} title={keyId}>
                        {keyNames.get(keyId) ?? keyId}
                      </Link>
                    ) : (
                      <span className="text-muted">—</span>
                    )}
                  </td>
                  <td data-label="Identity">
                    {row.identity_id ? (
                      <Link to={`/identities/${String(row.identity_id)}`}>{String(row.external_id)}</Link>
                    ) : (
                      <span className="text-muted">—</span>
                    )}
                  </td>
                  <td data-label="Tags">
                    {tags.length > 0 ? (
                      <ul className="chips">
                        {tags.map((tag) => (
                          <li key={tag}>
                            <code>{tag}</code>
                          </li>
                        ))}
                      </ul>
                    ) : (
                      <span className="text-muted">—</span>
                    )}
                  </td>
                  <td data-label="Credits" className="text-right tabular-nums">
                    {formatNumber(toCount(row.spent_credits))}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Verification pages">
        <button type="button" onClick={() => setTrail([])} disabled={trail.length === 0}>
          Newest
        </button>
        <button type="button" onClick={() => setTrail(trail.slice(0, -1))} disabled={trail.length === 0}>
          Newer
        </button>
        <button
          type="button"
          disabled={!hasOlder}
          onClick={() => {
            const last = rows.at(-1);
            if (last) setTrail([...trail, { time: toCount(last.time), requestId: String(last.request_id) }]);
          }}
        >
          Older
        </button>
        <span>Page {trail.length + 1}</span>
      </nav>
    </section>
  );
}

import { keepPreviousData, type UseQueryResult, useQuery } from '@tanstack/react-query';
import { type ComponentProps, type FormEvent, useId, useState } from 'react';
import { useMissingAnyGrant, useMissingPermission } from '../access.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { type PickerItem, SearchSelect } from '../components/SearchSelect.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { type ChartSeries, StackedBarChart } from '../components/StackedBarChart.tsx';
import { trpc } from '../trpc.ts';
import {
  bucketStarts,
  ratelimitsQuery,
  TIME_RANGES,
  type TimeRange,
  toCount,
  type VerificationFilters,
  verificationsQuery,
} from '../usageQueries.ts';
import { useDebouncedValue } from '../useDebouncedValue.ts';

const OUTCOME_COLORS: Record<string, string> = {
  VALID: '#2f855a',
  RATE_LIMITED: '#c05621',
  USAGE_EXCEEDED: '#b7791f',
  INSUFFICIENT_PERMISSIONS: '#6b46c1',
  DISABLED: '#4a5568',
  EXPIRED: '#2b6cb0',
  NOT_FOUND: '#c53030',
};

/** One series per value of `seriesOf(row)`, summing `amountOf(row)` into the row's bucket. */
function toSeries(
  rows: Record<string, unknown>[],
  buckets: number[],
  seriesOf: (row: Record<string, unknown>) => string,
  amountOf: (row: Record<string, unknown>) => number,
  colorOf: (name: string) => string,
): ChartSeries[] {
  const indexOf = new Map(buckets.map((bucket, index) => [bucket, index]));
  const series = new Map<string, number[]>();
  for (const row of rows) {
    const index = indexOf.get(toCount(row.time));
    if (index === undefined) continue;
    const name = seriesOf(row);
    const values = series.get(name) ?? buckets.map(() => 0);
    values[index] = (values[index] ?? 0) + amountOf(row);
    series.set(name, values);
  }
  return [...series].map(([name, values]) => ({ name, values, color: colorOf(name) }));
}

export function Usage() {
  const [range, setRange] = useState<TimeRange>('day');
  const [filters, setFilters] = useState<VerificationFilters>({});
  // The range ends at the current bucket when the screen opens or the range changes.
  const [now, setNow] = useState(() => Date.now());
  const buckets = bucketStarts(range, now);
  const from = buckets[0] ?? now;
  const { granularity } = TIME_RANGES[range];
  const formatBucket = (bucket: number) =>
    new Date(bucket).toLocaleString(
      undefined,
      granularity === 'day' ? { dateStyle: 'medium' } : { timeStyle: 'short' },
    );

  // A panel the root key may not read says so instead of asking for a 403.
  const verificationsMissing = useMissingAnyGrant('api', 'read_analytics');
  const ratelimitsMissing = useMissingAnyGrant('ratelimit', 'read_analytics');
  const verifications = useQuery({
    ...trpc.analytics.getVerifications.queryOptions({ query: verificationsQuery(range, from, filters) }),
    enabled: verificationsMissing === undefined,
  });
  const ratelimits = useQuery({
    ...trpc.analytics.getRatelimits.queryOptions({ query: ratelimitsQuery(range, from) }),
    enabled: ratelimitsMissing === undefined,
  });

  const outcomeSeries = toSeries(
    verifications.data ?? [],
    buckets,
    (row) => String(row.outcome),
    (row) => toCount(row.total),
    (name) => OUTCOME_COLORS[name] ?? '#718096',
  );
  const creditSeries = toSeries(
    verifications.data ?? [],
    buckets,
    () => 'Credits spent',
    (row) => toCount(row.credits),
    () => '#2b6cb0',
  );
  const decisionSeries = toSeries(
    ratelimits.data ?? [],
    buckets,
    (row) => (row.passed ? 'Passed' : 'Limited'),
    (row) => toCount(row.total),
    (name) => (name === 'Passed' ? '#2f855a' : '#c53030'),
  );

  return (
    <>
      <h1 tabIndex={-1}>Usage</h1>
      <div className="filters">
        <div className="field">
          <label htmlFor="usage-range">Time range</label>
          <select
            id="usage-range"
            value={range}
            onChange={(event) => {
              setRange(event.target.value as TimeRange);
              setNow(Date.now());
            }}
          >
            {Object.entries(TIME_RANGES).map(([value, spec]) => (
              <option key={value} value={value}>
                {spec.label}
              </option>
            ))}
          </select>
        </div>
        <VerificationFilterForm
          onApply={(next) => {
            setFilters(next);
            setNow(Date.now());
          }}
        />
      </div>

      <ChartPanel
        title="Verifications by outcome"
        query={verifications}
        chart={{ buckets, series: outcomeSeries, formatBucket }}
        missing={verificationsMissing}
      />
      <ChartPanel
        title="Credits spent"
        query={verifications}
        chart={{ buckets, series: creditSeries, formatBucket }}
        failureNote="Not available: the verifications did not load (see above)."
        missing={verificationsMissing}
      />
      <ChartPanel
        title="Rate-limit decisions"
        query={ratelimits}
        chart={{ buckets, series: decisionSeries, formatBucket }}
        missing={ratelimitsMissing}
        note={
          filters.apiId || filters.keyId || filters.identityId
            ? 'Not filtered: rate-limit decisions belong to namespaces, not to an API, key or identity, so this chart shows the whole workspace.'
            : undefined
        }
      />
    </>
  );
}

interface ChartPanelProps {
  title: string;
  query: Pick<UseQueryResult, 'data' | 'error' | 'isPending' | 'refetch'>;
  chart: Omit<ComponentProps<typeof StackedBarChart>, 'label'>;
  /** Shown instead of the error when another panel of the same query already shows it, with the retry. */
  failureNote?: string;
  /** Shown under the title, e.g. that the filters above do not apply to this chart. */
  note?: string;
  /** Why the root key may not read this chart: shown instead of it, the query never asked. */
  missing?: string;
}

/** A titled chart of one query's rows, or its loading placeholder or error. */
function ChartPanel({ title, query, chart, failureNote, note, missing }: ChartPanelProps) {
  const id = useId();
  if (missing) {
    return (
      <section className="panel" aria-labelledby={id}>
        <h2 id={id}>{title}</h2>
        <p className="hint">Not shown: {missing}</p>
      </section>
    );
  }
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {note ? <p className="hint">{note}</p> : null}
      {query.error ? (
        failureNote ? (
          <p>{failureNote}</p>
        ) : (
          <ErrorMessage error={query.error} onRetry={() => void query.refetch()} />
        )
      ) : null}
      {query.isPending ? <BlockSkeleton height="16rem" /> : null}
      {query.data ? <StackedBarChart label={title} {...chart} /> : null}
    </section>
  );
}

const PICKER_PAGE_SIZE = 20;

/** API, key and identity filters, applied together on submit. Keys and identities are found by server-side search. */
function VerificationFilterForm({ onApply }: { onApply: (filters: VerificationFilters) => void }) {
  const apis = useQuery(trpc.apis.listApis.queryOptions({ limit: 100 }));
  const [apiId, setApiId] = useState('');
  const [key, setKey] = useState<PickerItem | null>(null);
  const [keySearch, setKeySearch] = useState('');
  const [identity, setIdentity] = useState<PickerItem | null>(null);
  const [identitySearch, setIdentitySearch] = useState('');
  const debouncedKeySearch = useDebouncedValue(keySearch.trim());
  const debouncedIdentitySearch = useDebouncedValue(identitySearch.trim());

  const keys = useQuery({
    ...trpc.apis.listKeys.queryOptions({
      apiId,
      limit: PICKER_PAGE_SIZE,
      search: debouncedKeySearch || undefined,
    }),
    // Keys are listed per API: there is nothing to search before one is chosen.
    enabled: apiId !== '',
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

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ apiId: apiId || undefined, keyId: key?.id, identityId: identity?.id });
  };

  return (
    <form onSubmit={submit} className="inline-form">
      <div className="field">
        <label htmlFor="usage-api">API</label>
        <select
          id="usage-api"
          value={apiId}
          onChange={(event) => {
            setApiId(event.target.value);
            // A key belongs to one API: a pick from another would filter everything out.
            setKey(null);
            setKeySearch('');
          }}
          aria-describedby="usage-api-status"
        >
          <option value="">All APIs</option>
          {apis.data?.data.map((api) => (
            <option key={api.id} value={api.id}>
              {api.name}
            </option>
          ))}
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
        selected={key}
        onSelect={setKey}
        search={keySearch}
        onSearchChange={setKeySearch}
        matches={keys}
        unavailable={apiId === '' ? 'Choose an API to pick one of its keys.' : undefined}
      />
      <SearchSelect
        label="Identity"
        noun="identities"
        anyLabel="All identities"
        selected={identity}
        onSelect={setIdentity}
        search={identitySearch}
        onSearchChange={setIdentitySearch}
        matches={identities}
        unavailable={identitiesMissing}
      />
      <button type="submit">Apply filters</button>
    </form>
  );
}

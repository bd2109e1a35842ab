import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { BlockSkeleton } from '../components/Skeleton.tsx';
import { type ChartSeries, StackedBarChart } from '../components/StackedBarChart.tsx';
import { trpc } from '../trpc.ts';
import {
  bucketStarts,
  ID_PATTERN,
  ratelimitsQuery,
  TIME_RANGES,
  type TimeRange,
  toCount,
  type VerificationFilters,
  verificationsQuery,
} from '../usageQueries.ts';

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

  const verifications = useQuery(
    trpc.analytics.getVerifications.queryOptions({ query: verificationsQuery(range, from, filters) }),
  );
  const ratelimits = useQuery(trpc.analytics.getRatelimits.queryOptions({ query: ratelimitsQuery(range, from) }));

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

      <section className="panel" aria-labelledby="usage-verifications-title">
        <h2 id="usage-verifications-title">Verifications by outcome</h2>
        {verifications.error ? (
          <ErrorMessage error={verifications.error} onRetry={() => void verifications.refetch()} />
        ) : null}
        {verifications.isPending ? <BlockSkeleton height="16rem" /> : null}
        {verifications.data ? (
          <StackedBarChart
            label="Verifications by outcome"
            buckets={buckets}
            series={outcomeSeries}
            formatBucket={formatBucket}
          />
        ) : null}
      </section>
      <section className="panel" aria-labelledby="usage-credits-title">
        <h2 id="usage-credits-title">Credits spent</h2>
        {verifications.isPending ? <BlockSkeleton height="16rem" /> : null}
        {verifications.data ? (
          <StackedBarChart label="Credits spent" buckets={buckets} series={creditSeries} formatBucket={formatBucket} />
        ) : null}
      </section>
      <section className="panel" aria-labelledby="usage-ratelimits-title">
        <h2 id="usage-ratelimits-title">Rate-limit decisions</h2>
        {ratelimits.error ? <ErrorMessage error={ratelimits.error} onRetry={() => void ratelimits.refetch()} /> : null}
        {ratelimits.isPending ? <BlockSkeleton height="16rem" /> : null}
        {ratelimits.data ? (
          <StackedBarChart
            label="Rate-limit decisions"
            buckets={buckets}
            series={decisionSeries}
            formatBucket={formatBucket}
          />
        ) : null}
      </section>
    </>
  );
}

/** API, key and identity filters, applied together on submit. */
function VerificationFilterForm({ onApply }: { onApply: (filters: VerificationFilters) => void }) {
  const apis = useQuery(trpc.apis.listApis.queryOptions({ limit: 100 }));
  const [apiId, setApiId] = useState('');
  const [keyId, setKeyId] = useState('');
  const [identityId, setIdentityId] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({
      apiId: apiId || undefined,
      keyId: keyId.trim() || undefined,
      identityId: identityId.trim() || undefined,
    });
  };

  return (
    <form onSubmit={submit} className="inline-form">
      <div className="field">
        <label htmlFor="usage-api">API</label>
        <select id="usage-api" value={apiId} onChange={(event) => setApiId(event.target.value)}>
          <option value="">All APIs</option>
          {apis.data?.data.map((api) => (
            <option key={api.id} value={api.id}>
              {api.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="usage-key">Key id</label>
        <input
          id="usage-key"
          pattern={ID_PATTERN.source}
          placeholder="key_…"
          value={keyId}
          onChange={(event) => setKeyId(event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="usage-identity">Identity id</label>
        <input
          id="usage-identity"
          pattern={ID_PATTERN.source}
          placeholder="id_…"
          value={identityId}
          onChange={(event) => setIdentityId(event.target.value)}
        />
      </div>
      <button type="submit">Apply filters</button>
    </form>
  );
}

import { type QueryKey, type UseQueryResult, useQuery } from '@tanstack/react-query';
import { type ReactNode, useId } from 'react';
import { ratelimitsQueryOptions, verificationsQueryOptions } from '../analytics.ts';
import { formatNumber } from '../format.ts';
import { outcomeOrder, outcomeStyle } from '../outcomes.ts';
import {
  differOnlyInStart,
  ratelimitsQuery,
  toCount,
  type VerificationFilters,
  verificationsQuery,
} from '../usageQueries.ts';
import { seriesTotal, shareSummary, toSeries } from '../usageSeries.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { BlockSkeleton } from './Skeleton.tsx';
import { type ChartSeries, StackedBarChart } from './StackedBarChart.tsx';
import type { TimeWindow } from './TimeRangeControls.tsx';

const DECISIONS: Record<string, { label: string; color: string }> = {
  passed: { label: 'Passed', color: '#22a55b' },
  limited: { label: 'Limited', color: '#ef4444' },
};

type Rows = Record<string, unknown>[];

/**
 * While a chart that moved on with the clock loads, its earlier answer stands in (rows still in
 * the range land in their buckets), instead of a placeholder blinking at every refresh. Another
 * range or other filters show the placeholder: their earlier numbers would mislead.
 */
function earlierAnswerOf(query: string) {
  return (previous: Rows | undefined, previousQuery: { queryKey: QueryKey } | undefined) => {
    const input = previousQuery?.queryKey.at(-1);
    const previousSql = typeof input === 'object' && input !== null && 'query' in input ? input.query : undefined;
    return typeof previousSql === 'string' && differOnlyInStart(previousSql, query) ? previous : undefined;
  };
}

/**
 * The verifications of the window (filtered), as outcome and credit series. `missing`: why the root
 * key may not read them; the query is then never asked.
 */
export function useVerificationSeries(timeWindow: TimeWindow, filters: VerificationFilters, missing?: string) {
  const { range, from, buckets } = timeWindow;
  const sql = verificationsQuery(range, from, filters);
  const query = useQuery({
    ...verificationsQueryOptions(sql),
    enabled: missing === undefined,
    placeholderData: earlierAnswerOf(sql),
  });
  const rows = query.data ?? [];
  const outcomes = toSeries(
    rows,
    buckets,
    (row) => String(row.outcome),
    (row) => toCount(row.total),
    outcomeStyle,
    outcomeOrder,
  );
  const credits = toSeries(
    rows,
    buckets,
    () => 'credits',
    (row) => toCount(row.credits),
    () => ({ label: 'Credits spent', color: '#6366f1' }),
  );
  return { query, outcomes, credits };
}

/** Rate-limit decisions of the window, passed or limited; of one namespace when its id is given. */
export function useDecisionSeries(timeWindow: TimeWindow, namespaceId: string | undefined, missing?: string) {
  const { range, from, buckets } = timeWindow;
  const sql = ratelimitsQuery(range, from, namespaceId);
  const query = useQuery({
    ...ratelimitsQueryOptions(sql),
    enabled: missing === undefined,
    placeholderData: earlierAnswerOf(sql),
  });
  const decisions = toSeries(
    query.data ?? [],
    buckets,
    (row) => (row.passed ? 'passed' : 'limited'),
    (row) => toCount(row.total),
    (key) => DECISIONS[key] ?? { label: key, color: '#78716c' },
    (a, b) => (a === b ? 0 : a === 'passed' ? -1 : 1),
  );
  return { query, decisions };
}

export const outcomeSummary = (series: ChartSeries[]) =>
  shareSummary(series, { key: 'VALID', word: 'valid' }, { one: 'verification', many: 'verifications' });

export const decisionSummary = (series: ChartSeries[]) =>
  shareSummary(series, { key: 'passed', word: 'passed' }, { one: 'decision', many: 'decisions' });

export function creditSummary(series: ChartSeries[]): string {
  const total = seriesTotal(series);
  return `${formatNumber(total)} ${total === 1 ? 'credit' : 'credits'} spent`;
}

interface ChartPanelProps {
  title: string;
  query: Pick<UseQueryResult, 'data' | 'error' | 'isPending' | 'refetch'>;
  timeWindow: TimeWindow;
  series: ChartSeries[];
  summary: string;
  /** Shown instead of the error when another panel of the same query already shows it, with the retry. */
  failureNote?: string;
  /** Shown under the title, e.g. that the filters above do not apply to this chart. */
  note?: string;
  /** Why the root key may not read this chart: shown instead of it, the query never asked. */
  missing?: string;
  /** Shown under the title, before the chart: the time range of a page with one chart. */
  controls?: ReactNode;
}

/** A titled chart of one query's rows, or its loading placeholder or error. */
export function ChartPanel({
  title,
  query,
  timeWindow,
  series,
  summary,
  failureNote,
  note,
  missing,
  controls,
}: ChartPanelProps) {
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
      {controls}
      {note ? <p className="hint">{note}</p> : null}
      {query.error ? (
        failureNote ? (
          <p>{failureNote}</p>
        ) : (
          <ErrorMessage error={query.error} onRetry={() => void query.refetch()} />
        )
      ) : null}
      {query.isPending ? <BlockSkeleton height="18rem" /> : null}
      {query.data ? (
        <StackedBarChart
          label={title}
          buckets={timeWindow.buckets}
          series={series}
          formatBucket={timeWindow.formatBucket}
          formatTick={timeWindow.formatTick}
          summary={summary}
        />
      ) : null}
    </section>
  );
}

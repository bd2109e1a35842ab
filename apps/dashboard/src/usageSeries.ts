import type { ChartSeries } from './components/StackedBarChart.tsx';
import { formatNumber } from './format.ts';
import { toCount } from './usageQueries.ts';

type Row = Record<string, unknown>;

/**
 * One series per value of `seriesOf(row)`, summing `amountOf(row)` into the row's bucket, in the
 * order `compare` gives their keys; `styleOf` names and colours each.
 */
export function toSeries(
  rows: Row[],
  buckets: number[],
  seriesOf: (row: Row) => string,
  amountOf: (row: Row) => number,
  styleOf: (key: string) => { label: string; color: string },
  compare: (a: string, b: string) => number = (a, b) => a.localeCompare(b),
): ChartSeries[] {
  const indexOf = new Map(buckets.map((bucket, index) => [bucket, index]));
  const series = new Map<string, number[]>();
  for (const row of rows) {
    const index = indexOf.get(toCount(row.time));
    if (index === undefined) continue;
    const key = seriesOf(row);
    const values = series.get(key) ?? buckets.map(() => 0);
    values[index] = (values[index] ?? 0) + amountOf(row);
    series.set(key, values);
  }
  return [...series]
    .sort(([a], [b]) => compare(a, b))
    .map(([key, values]) => {
      const { label, color } = styleOf(key);
      return { key, name: label, color, values };
    });
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** Everything a chart shows, over all its series and buckets. */
export function seriesTotal(series: ChartSeries[]): number {
  return sum(series.map((line) => sum(line.values)));
}

const percent = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/**
 * The line above a chart: what share of everything went well, e.g. "96.2% valid of 4,000
 * verifications", or that nothing happened in the range.
 */
export function shareSummary(
  series: ChartSeries[],
  success: { key: string; word: string },
  noun: { one: string; many: string },
): string {
  const total = seriesTotal(series);
  if (total === 0) return `No ${noun.many} in this time range.`;
  const succeeded = sum(series.find((line) => line.key === success.key)?.values ?? []);
  return `${percent.format((succeeded / total) * 100)}% ${success.word} of ${formatNumber(total)} ${total === 1 ? noun.one : noun.many}`;
}

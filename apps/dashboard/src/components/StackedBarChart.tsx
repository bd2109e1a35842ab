import { Bar, BarChart, CartesianGrid, type TooltipContentProps, Tooltip as TooltipSlot, XAxis, YAxis } from 'recharts';
import { formatNumber } from '../format.ts';

export interface ChartSeries {
  /** What the data calls it (an outcome code); `name` is what people read. */
  key: string;
  name: string;
  /** A CSS colour; series are told apart by the legend, tooltip and table too, never by colour alone. */
  color: string;
  /** One value per bucket. */
  values: number[];
}

export interface StackedBarChartProps {
  /** The chart's accessible name. */
  label: string;
  buckets: number[];
  series: ChartSeries[];
  /** A bucket's time in full, for the tooltip and the table. */
  formatBucket: (bucketStart: number) => string;
  /** A bucket's time as short as the axis needs it. */
  formatTick: (bucketStart: number) => string;
  /** The line above the chart: its total, or the share that went well. */
  summary: string;
}

type Row = { time: number } & Record<string, number>;

// Axis labels are SVG text drawn at their own size (never scaled with the plot), so they keep their
// shape at any width; Recharts leaves out the time labels that would overlap.
// The fill is given here too: Recharts writes its own grey into each label's style attribute.
const AXIS_TICK = { className: 'axis-label', fill: 'var(--kp-muted)' };

/** Time buckets as stacked bars (Recharts), with a summary, a legend, a tooltip and the numbers as a table. */
export function StackedBarChart({ label, buckets, series, formatBucket, formatTick, summary }: StackedBarChartProps) {
  const data: Row[] = buckets.map((time, index) => {
    const row: Row = { time };
    for (const line of series) row[line.key] = line.values[index] ?? 0;
    return row;
  });

  return (
    <figure className="chart">
      <p className="chart-summary">{summary}</p>
      <div className="chart-plot" role="img" aria-label={`${label}: ${summary}`}>
        <BarChart
          responsive
          data={data}
          style={{ width: '100%', height: '100%' }}
          margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
          accessibilityLayer={false}
        >
          <CartesianGrid vertical={false} className="chart-grid" stroke="var(--kp-border)" />
          <XAxis
            dataKey="time"
            tickFormatter={formatTick}
            tick={AXIS_TICK}
            minTickGap={20}
            interval="preserveStartEnd"
            tickLine={false}
          />
          <YAxis
            allowDecimals={false}
            tickFormatter={formatNumber}
            tick={AXIS_TICK}
            width="auto"
            axisLine={false}
            tickLine={false}
          />
          <TooltipSlot
            cursor={{ fill: 'var(--kp-chart-cursor)' }}
            isAnimationActive={false}
            content={(props) => <BucketTooltip {...props} series={series} formatBucket={formatBucket} />}
          />
          {series.map((line) => (
            <Bar
              key={line.key}
              dataKey={line.key}
              name={line.name}
              stackId="total"
              fill={line.color}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </div>
      <figcaption>
        <ul className="legend">
          {series.map((line) => (
            <li key={line.key}>
              <span className="swatch" style={{ background: line.color }} aria-hidden="true" />
              {line.name}: {formatNumber(line.values.reduce((sum, value) => sum + value, 0))}
            </li>
          ))}
        </ul>
        <details>
          <summary className="chart-data-toggle">Show the data as a table</summary>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">{label}</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  {series.map((line) => (
                    <th key={line.key} scope="col">
                      {line.name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {buckets.map((bucket, index) => (
                  <tr key={bucket}>
                    <th scope="row">{formatBucket(bucket)}</th>
                    {series.map((line) => (
                      <td key={line.key}>{formatNumber(line.values[index] ?? 0)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </figcaption>
    </figure>
  );
}

interface BucketTooltipProps extends TooltipContentProps {
  series: ChartSeries[];
  formatBucket: (bucketStart: number) => string;
}

/** The hovered bucket's exact numbers, every series in legend order, and their total. */
function BucketTooltip({ active, payload, series, formatBucket }: BucketTooltipProps) {
  const row: Row | undefined = payload[0]?.payload;
  if (!active || !row) return null;
  const values = series.map((line) => ({ line, value: row[line.key] ?? 0 }));
  return (
    <div className="chart-tooltip">
      <p className="chart-tooltip-time">{formatBucket(row.time)}</p>
      <ul className="plain">
        {values.map(({ line, value }) => (
          <li key={line.key}>
            <span className="swatch" style={{ background: line.color }} aria-hidden="true" />
            {line.name}: <strong>{formatNumber(value)}</strong>
          </li>
        ))}
      </ul>
      {series.length > 1 ? (
        <p>
          Total: <strong>{formatNumber(values.reduce((sum, { value }) => sum + value, 0))}</strong>
        </p>
      ) : null}
    </div>
  );
}

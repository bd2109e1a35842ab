export interface ChartSeries {
  name: string;
  /** A CSS colour; series are told apart by the table and legend too, never by colour alone. */
  color: string;
  /** One value per bucket. */
  values: number[];
}

interface StackedBarChartProps {
  label: string;
  buckets: number[];
  series: ChartSeries[];
  formatBucket: (bucketStart: number) => string;
}

// The bars are drawn in this coordinate space and stretched to the plot's size; the axis labels are
// HTML beside and under it, so text keeps its shape at any width.
const WIDTH = 720;
const HEIGHT = 220;
/** How many time labels the x-axis shows at most: first, last and evenly between. */
const TIME_LABELS = 4;

/** The indexes of the buckets labelled on the x-axis. */
function labelledBuckets(count: number): number[] {
  if (count <= TIME_LABELS) return Array.from({ length: count }, (_, index) => index);
  const step = (count - 1) / (TIME_LABELS - 1);
  return Array.from({ length: TIME_LABELS }, (_, index) => Math.round(index * step));
}

/** Stacked bars per time bucket as SVG, with the same numbers in a table for screen readers and keyboards. */
export function StackedBarChart({ label, buckets, series, formatBucket }: StackedBarChartProps) {
  const totals = buckets.map((_, index) => series.reduce((sum, line) => sum + (line.values[index] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const slot = WIDTH / Math.max(1, buckets.length);
  const barWidth = Math.max(1, slot * 0.8);
  const scale = HEIGHT / max;
  const total = totals.reduce((sum, value) => sum + value, 0);

  return (
    <figure className="chart">
      <div className="chart-plot">
        <div className="y-axis" aria-hidden="true">
          <span className="axis-label">{max}</span>
          <span className="axis-label">0</span>
        </div>
        <svg role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none">
          <title>{`${label}: ${total} in total`}</title>
          <line x1={0} y1={HEIGHT} x2={WIDTH} y2={HEIGHT} className="axis" />
          {buckets.map((bucket, index) => {
            let y = HEIGHT;
            return (
              <g key={bucket}>
                {series.map((line) => {
                  const height = (line.values[index] ?? 0) * scale;
                  y -= height;
                  return height > 0 ? (
                    <rect key={line.name} x={index * slot} y={y} width={barWidth} height={height} fill={line.color} />
                  ) : null;
                })}
              </g>
            );
          })}
        </svg>
        <div className="x-axis" aria-hidden="true">
          {labelledBuckets(buckets.length).map((index) => (
            <span
              key={index}
              className="axis-label"
              style={{ left: `${((index + 0.4) / Math.max(1, buckets.length)) * 100}%` }}
            >
              {formatBucket(buckets[index] ?? 0)}
            </span>
          ))}
        </div>
      </div>
      <figcaption>
        <ul className="legend">
          {series.map((line) => (
            <li key={line.name}>
              <span className="swatch" style={{ background: line.color }} aria-hidden="true" />
              {line.name}: {line.values.reduce((sum, value) => sum + value, 0)}
            </li>
          ))}
        </ul>
        <details>
          <summary>Show the data as a table</summary>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">{label}</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  {series.map((line) => (
                    <th key={line.name} scope="col">
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
                      <td key={line.name}>{line.values[index] ?? 0}</td>
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

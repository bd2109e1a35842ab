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

const WIDTH = 720;
const HEIGHT = 220;
const AXIS = 40;

/** Stacked bars per time bucket as SVG, with the same numbers in a table for screen readers and keyboards. */
export function StackedBarChart({ label, buckets, series, formatBucket }: StackedBarChartProps) {
  const totals = buckets.map((_, index) => series.reduce((sum, line) => sum + (line.values[index] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const slot = (WIDTH - AXIS) / Math.max(1, buckets.length);
  const barWidth = Math.max(1, slot * 0.8);
  const scale = (HEIGHT - 20) / max;
  const total = totals.reduce((sum, value) => sum + value, 0);

  return (
    <figure className="chart">
      <svg role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none">
        <title>{`${label}: ${total} in total`}</title>
        <text x={0} y={12} className="axis-label">
          {max}
        </text>
        <line x1={AXIS} y1={HEIGHT} x2={WIDTH} y2={HEIGHT} className="axis" />
        {buckets.map((bucket, index) => {
          let y = HEIGHT;
          return (
            <g key={bucket}>
              {series.map((line) => {
                const height = (line.values[index] ?? 0) * scale;
                y -= height;
                return height > 0 ? (
                  <rect
                    key={line.name}
                    x={AXIS + index * slot}
                    y={y}
                    width={barWidth}
                    height={height}
                    fill={line.color}
                  />
                ) : null;
              })}
            </g>
          );
        })}
      </svg>
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

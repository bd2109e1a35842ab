/** A row's trend in a table cell: a plain SVG line, light enough for fifty rows. */
export function MiniSparkline({ values, label }: { values: readonly number[]; label: string }) {
  const width = 64;
  const height = 20;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const points = values.map(
    (value, index) => `${(index * step).toFixed(1)},${(height - 1 - (value / max) * (height - 2)).toFixed(1)}`,
  );
  return (
    <svg
      className="mini-sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
    >
      <polyline
        points={`0,${height} ${points.join(' ')} ${width},${height}`}
        fill="var(--kp-accent-subtle)"
        stroke="none"
      />
      <polyline
        points={points.join(' ')}
        fill="none"
        stroke="var(--kp-accent)"
        strokeWidth="1.25"
        strokeLinejoin="round"
      />
    </svg>
  );
}

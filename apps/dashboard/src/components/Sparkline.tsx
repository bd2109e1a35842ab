import { Area, AreaChart, type TooltipContentProps, Tooltip as TooltipSlot } from 'recharts';
import { formatNumber } from '../format.ts';

interface SparklineProps {
  /** The accessible name, with the numbers it stands for. */
  label: string;
  buckets: number[];
  values: number[];
  formatBucket: (bucketStart: number) => string;
}

/** A small trend line with no axes (Recharts), for a page header; hovering a point shows its exact count. */
export function Sparkline({ label, buckets, values, formatBucket }: SparklineProps) {
  const data = buckets.map((time, index) => ({ time, count: values[index] ?? 0 }));
  return (
    <div className="sparkline" role="img" aria-label={label}>
      <AreaChart
        responsive
        data={data}
        style={{ width: '100%', height: '100%' }}
        margin={{ top: 2, right: 2, bottom: 2, left: 2 }}
        accessibilityLayer={false}
      >
        <TooltipSlot
          isAnimationActive={false}
          allowEscapeViewBox={{ x: true, y: true }}
          content={(props) => <PointTooltip {...props} formatBucket={formatBucket} />}
        />
        <Area
          dataKey="count"
          type="linear"
          stroke="var(--kp-accent)"
          fill="var(--kp-accent-subtle)"
          strokeWidth={1.5}
          isAnimationActive={false}
        />
      </AreaChart>
    </div>
  );
}

function PointTooltip({
  active,
  payload,
  formatBucket,
}: TooltipContentProps & { formatBucket: (bucketStart: number) => string }) {
  const point: { time: number; count: number } | undefined = payload[0]?.payload;
  if (!active || !point) return null;
  return (
    <div className="chart-tooltip">
      <p className="chart-tooltip-time">{formatBucket(point.time)}</p>
      <p>
        <strong>{formatNumber(point.count)}</strong> verifications
      </p>
    </div>
  );
}

import { useEffect, useId, useState } from 'react';
import { isUnauthorized, type Key, portalApi, problemText, type UsageBucket } from './api.ts';
import { formatDate, formatDay, formatNumber, keyLabel } from './format.ts';
import { dayStarts, nextDay, niceCeiling, perDay, toUsagePoints } from './usage.ts';

const RANGES = [
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
] as const;

interface UsagePanelProps {
  onSessionEnd: () => void;
  /** Changes whenever a key was made, rolled, renamed or deleted. */
  keysVersion: number;
  /** The session may list keys (`keys:read`): usage can be shown per key. */
  withKeys: boolean;
}

/** Verifications per day, of all the customer's keys or of one. */
export function UsagePanel({ onSessionEnd, keysVersion, withKeys }: UsagePanelProps) {
  const [keys, setKeys] = useState<Key[]>([]);
  const [keyId, setKeyId] = useState('');
  const [days, setDays] = useState<number>(30);
  const [buckets, setBuckets] = useState<UsageBucket[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [attempt, setAttempt] = useState(0);
  const keySelectId = useId();
  const rangeSelectId = useId();

  useEffect(() => {
    if (!withKeys || keysVersion < 0) return;
    let current = true;
    portalApi.listKeys().then(
      (page) => {
        if (!current) return;
        setKeys(page.data);
        // A key deleted meanwhile: back to all keys.
        setKeyId((chosen) => (page.data.some((key) => key.keyId === chosen) ? chosen : ''));
      },
      (failure: unknown) => {
        if (current && isUnauthorized(failure)) onSessionEnd();
      },
    );
    return () => {
      current = false;
    };
  }, [withKeys, keysVersion, onSessionEnd]);

  useEffect(() => {
    // Asked again after a retry and after every change to the keys.
    if (attempt < 0 || keysVersion < 0) return;
    let current = true;
    const starts = dayStarts(Date.now(), days);
    const startTime = starts[0] ?? 0;
    const endTime = nextDay(starts.at(-1) ?? 0);
    setError(undefined);
    portalApi.getVerifications({ startTime, endTime, keyId: keyId || undefined }).then(
      (answer) => current && setBuckets(perDay(toUsagePoints(answer), starts, endTime)),
      (failure: unknown) => {
        if (!current) return;
        if (isUnauthorized(failure)) onSessionEnd();
        else setError(problemText(failure));
      },
    );
    return () => {
      current = false;
    };
  }, [keyId, days, attempt, keysVersion, onSessionEnd]);

  const chosen = keys.find((key) => key.keyId === keyId);
  const subject = chosen ? keyLabel(chosen) : 'All your keys';

  return (
    <section className="panel" aria-labelledby="usage-title">
      <div className="panel-header">
        <h2 id="usage-title">Usage</h2>
      </div>
      <div className="usage-controls">
        {withKeys ? (
          <div className="field">
            <label htmlFor={keySelectId}>Key</label>
            <select id={keySelectId} value={keyId} onChange={(event) => setKeyId(event.target.value)}>
              <option value="">All keys</option>
              {keys.map((key) => (
                <option key={key.keyId} value={key.keyId}>
                  {keyLabel(key)}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <div className="field">
          <label htmlFor={rangeSelectId}>Period</label>
          <select id={rangeSelectId} value={days} onChange={(event) => setDays(Number(event.target.value))}>
            {RANGES.map((range) => (
              <option key={range.days} value={range.days}>
                {range.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {error ? (
        <div role="alert" className="problem">
          <p>{error}</p>
          <button type="button" onClick={() => setAttempt((count) => count + 1)}>
            Try again
          </button>
        </div>
      ) : null}
      {buckets === undefined && !error ? <p role="status">Loading usage…</p> : null}
      {buckets ? <UsageChart subject={subject} buckets={buckets} /> : null}
    </section>
  );
}

/**
 * Bars per day, valid and refused stacked, drawn as SVG shapes only: the numbers and dates around
 * them are HTML, so they keep their shape at any width. The chart's name says its totals, and the
 * table under it every day's numbers.
 */
export function UsageChart({ subject, buckets }: { subject: string; buckets: UsageBucket[] }) {
  const valid = buckets.reduce((sum, bucket) => sum + bucket.valid, 0);
  const refused = buckets.reduce((sum, bucket) => sum + bucket.refused, 0);
  const top = niceCeiling(Math.max(...buckets.map((bucket) => bucket.valid + bucket.refused)));
  const first = buckets[0]?.time ?? 0;
  const last = buckets.at(-1)?.time ?? 0;
  const summary =
    valid + refused === 0
      ? `${subject}: no verifications from ${formatDate(first)} to ${formatDate(last)}`
      : `${subject}: ${formatNumber(valid + refused)} verifications from ${formatDate(first)} to ${formatDate(last)}, ${formatNumber(valid)} valid and ${formatNumber(refused)} refused`;
  const height = (count: number) => (count / top) * 100;
  return (
    <figure className="chart">
      <p className="chart-summary">{summary}.</p>
      <div className="chart-body" role="img" aria-label={`Verifications per day. ${summary}.`}>
        <div className="y-axis" aria-hidden="true">
          <span>{formatNumber(top)}</span>
          <span>{formatNumber(top / 2)}</span>
          <span>0</span>
        </div>
        <svg className="plot" viewBox={`0 0 ${buckets.length} 100`} preserveAspectRatio="none" aria-hidden="true">
          {[0, 50, 100].map((y) => (
            <line key={y} x1={0} x2={buckets.length} y1={y} y2={y} className="grid" vectorEffect="non-scaling-stroke" />
          ))}
          {buckets.map((bucket, index) => (
            <g key={bucket.time}>
              <rect
                className="bar-valid"
                x={index + 0.15}
                width={0.7}
                y={100 - height(bucket.valid)}
                height={height(bucket.valid)}
              />
              <rect
                className="bar-refused"
                x={index + 0.15}
                width={0.7}
                y={100 - height(bucket.valid + bucket.refused)}
                height={height(bucket.refused)}
              />
            </g>
          ))}
        </svg>
        <div className="x-axis" aria-hidden="true">
          <span>{formatDay(first)}</span>
          <span>{formatDay(last)}</span>
        </div>
      </div>
      <figcaption>
        <ul className="legend">
          <li>
            <span className="swatch swatch-valid" aria-hidden="true" />
            Valid: {formatNumber(valid)}
          </li>
          <li>
            <span className="swatch swatch-refused" aria-hidden="true" />
            Refused: {formatNumber(refused)}
          </li>
        </ul>
        <details>
          <summary>Show the numbers</summary>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Verifications per day: {subject}</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">Valid</th>
                  <th scope="col">Refused</th>
                </tr>
              </thead>
              <tbody>
                {buckets.map((bucket) => (
                  <tr key={bucket.time}>
                    <th scope="row">{formatDate(bucket.time)}</th>
                    <td>{formatNumber(bucket.valid)}</td>
                    <td>{formatNumber(bucket.refused)}</td>
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

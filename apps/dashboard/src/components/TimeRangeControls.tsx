import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { RefreshCw } from 'lucide-react';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { timeZoneOf } from '../format.ts';
import { navigateSearch, useSearch } from '../router.tsx';
import { trpc } from '../trpc.ts';
import { bucketStarts, TIME_RANGES, type TimeRange } from '../usageQueries.ts';

/**
 * How often "Live" moves the range to the present and asks again. Every chart's query counts
 * against the workspace's analytics quota (1000 an hour by default), so not every second.
 */
export const LIVE_INTERVAL_MS = 10_000;

const TICK_FORMATS: Record<TimeRange, Intl.DateTimeFormat> = {
  hour: new Intl.DateTimeFormat(undefined, { timeStyle: 'short' }),
  day: new Intl.DateTimeFormat(undefined, { timeStyle: 'short' }),
  week: new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: 'numeric' }),
  month: new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' }),
};
const BUCKET_FORMATS: Record<TimeRange, Intl.DateTimeFormat> = {
  hour: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
  day: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
  week: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
  month: new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }),
};
const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

const RANGE_PARAM = 'range';

const isTimeRange = (value: string | null): value is TimeRange => value !== null && value in TIME_RANGES;

export interface TimeWindow {
  range: TimeRange;
  /** The bucket starts of the range, the last one holding `now`. */
  buckets: number[];
  /** The first bucket's start: what queries ask from. */
  from: number;
  /** When the range was last anchored to the present. */
  now: number;
  live: boolean;
  formatBucket: (bucketStart: number) => string;
  formatTick: (bucketStart: number) => string;
  setRange: (range: TimeRange) => void;
  setLive: (live: boolean) => void;
  /** Moves the range to the present and asks every chart (and `alsoRefresh`) again. */
  refresh: () => void;
}

/**
 * A time range that ends now and moves with the clock: on a range change, on Refresh, and every
 * {@link LIVE_INTERVAL_MS} while live. Refreshing asks the analytics queries again even when the
 * range's first bucket did not change (their keys hold only that).
 */
export function useTimeWindow(
  initial: TimeRange,
  alsoRefresh: QueryKey[] = [],
  options: { inUrl?: boolean } = {},
): TimeWindow {
  const queryClient = useQueryClient();
  const [rangeState, setRangeState] = useState(initial);
  // On a screen of its own (Usage) the range is in the URL (`?range=week`): a reload or a link keeps it.
  const named = new URLSearchParams(useSearch()).get(RANGE_PARAM);
  const range = options.inUrl ? (isTimeRange(named) ? named : initial) : rangeState;
  const [now, setNow] = useState(() => Date.now());
  const [live, setLive] = useState(false);
  const extraKeys = useRef(alsoRefresh);
  extraKeys.current = alsoRefresh;

  const refresh = useCallback(() => {
    setNow(Date.now());
    for (const queryKey of [trpc.analytics.pathKey(), ...extraKeys.current]) {
      void queryClient.invalidateQueries({ queryKey });
    }
  }, [queryClient]);

  useEffect(() => {
    if (!live) return;
    const timer = setInterval(refresh, LIVE_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [live, refresh]);

  const buckets = bucketStarts(range, now);
  return {
    range,
    buckets,
    from: buckets[0] ?? now,
    now,
    live,
    formatBucket: (bucketStart) => BUCKET_FORMATS[range].format(bucketStart),
    formatTick: (bucketStart) => TICK_FORMATS[range].format(bucketStart),
    setRange: (next) => {
      if (options.inUrl) {
        const params = new URLSearchParams(window.location.search);
        if (next === initial) params.delete(RANGE_PARAM);
        else params.set(RANGE_PARAM, next);
        navigateSearch(params);
      } else {
        setRangeState(next);
      }
      setNow(Date.now());
    },
    setLive: (next) => {
      setLive(next);
      if (next) refresh();
    },
    refresh,
  };
}

/** The range picker, the Live switch and Refresh, with the moment the charts were last brought up to. */
export function TimeRangeControls({ timeWindow }: { timeWindow: TimeWindow }) {
  const id = useId();
  return (
    <div className="time-controls">
      <div className="field">
        <label htmlFor={`${id}-range`}>Time range</label>
        <select
          id={`${id}-range`}
          value={timeWindow.range}
          onChange={(event) => timeWindow.setRange(event.target.value as TimeRange)}
        >
          {Object.entries(TIME_RANGES).map(([value, spec]) => (
            <option key={value} value={value}>
              {spec.label}
            </option>
          ))}
        </select>
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={timeWindow.live}
          onChange={(event) => timeWindow.setLive(event.target.checked)}
        />
        Live
      </label>
      <button type="button" onClick={timeWindow.refresh}>
        <RefreshCw size={14} aria-hidden="true" />
        Refresh
      </button>
      <p className="hint time-window" data-testid="time-window">
        {TIME_RANGES[timeWindow.range].label} up to {clock.format(timeWindow.now)} {timeZoneOf(timeWindow.now)}
        {timeWindow.live ? `, updated every ${LIVE_INTERVAL_MS / 1000} s` : ''}
      </p>
    </div>
  );
}

import type { Orm } from '@keyplane/db';
import { createEventPartitions } from './eventPartitions.ts';
import { deleteExpiredAnalytics, type RetentionResult } from './retention.ts';

export interface RetentionSchedule {
  stop(): Promise<void>;
}

/** Days ahead whose event partitions each run makes sure of: a week of runs may fail before a day lacks one. */
const PARTITION_DAYS_AHEAD = 7;

/**
 * Runs the retention every `intervalMs` (first shortly after start), one run at a time, off the
 * request path. Each run first creates the event tables' day partitions from yesterday (late
 * events, replayed spools) to a week ahead, so rows arrive in a partition of their day rather than
 * the default one. Several nodes may each run it: partitions are created once, and the deletes
 * are idempotent.
 */
export function scheduleAnalyticsRetention(
  orm: Orm,
  options: {
    retentionDays: number;
    intervalMs?: number;
    now?: () => number;
    onError?: (error: unknown) => void;
    onDone?: (result: RetentionResult) => void;
  },
): RetentionSchedule {
  const now = options.now ?? Date.now;
  let running: Promise<void> | undefined;
  const run = () => {
    if (running) return;
    const started = now();
    const before = new Date(started - options.retentionDays * 86_400_000);
    running = createEventPartitions(
      orm,
      new Date(started - 86_400_000),
      new Date(started + PARTITION_DAYS_AHEAD * 86_400_000),
    )
      .then(() => deleteExpiredAnalytics(orm, { before }))
      .then((result) => options.onDone?.(result))
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(run, 60_000);
  const timer = setInterval(run, options.intervalMs ?? 3_600_000);
  first.unref();
  timer.unref();
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}

import { deleteExpiredAnalytics, type Orm, type RetentionResult } from '@keyplane/db';

export interface RetentionSchedule {
  stop(): Promise<void>;
}

/**
 * Runs the retention every `intervalMs` (first shortly after start), one run at a time, off the
 * request path. Several nodes may each run it: the deletes are idempotent.
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
    const before = new Date(now() - options.retentionDays * 86_400_000);
    running = deleteExpiredAnalytics(orm, { before })
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

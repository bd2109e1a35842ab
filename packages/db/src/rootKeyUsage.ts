import type { Orm } from './orm.ts';
import { recordRootKeyUses } from './rootKeys.ts';

/**
 * Records when root keys were last used: many uses within a flush interval become one write per
 * key, off the request path, so authentication stays a cache hit.
 */
export function createRootKeyUsageTracker(
  orm: Orm,
  options: { flushIntervalMs?: number; onError?: (error: unknown) => void } = {},
) {
  let lastUse = new Map<string, number>();
  const flush = async (): Promise<void> => {
    if (lastUse.size === 0) return;
    const batch = lastUse;
    lastUse = new Map();
    try {
      await recordRootKeyUses(orm.em.fork(), batch);
    } catch (error) {
      for (const [id, time] of batch) lastUse.set(id, Math.max(time, lastUse.get(id) ?? 0));
      options.onError?.(error);
    }
  };
  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 5000);
  timer.unref();
  return {
    touch(rootKeyId: string, time: number): void {
      lastUse.set(rootKeyId, time);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

export type RootKeyUsageTracker = ReturnType<typeof createRootKeyUsageTracker>;

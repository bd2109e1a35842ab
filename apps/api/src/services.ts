import { FreshnessCache } from '@keyplane/core';
import { createCreditSpender, createVerificationRecorder, listenForInvalidations, type Orm } from '@keyplane/db';
import { evict, type Services } from '@keyplane/procedures';
import { createRateLimitEngine } from '@keyplane/ratelimit';
import type { Logger } from './log.ts';

/**
 * How long a cached key or root key may be served without hearing from the database. Changes are
 * announced at once (NOTIFY); this bounds staleness if an announcement is ever missed.
 */
const FRESHNESS_MS = 1000;

export interface RunningServices {
  services: Services;
  stop(): Promise<void>;
}

export async function startServices(options: {
  orm: Orm;
  databaseUrl: string;
  redisUrl?: string;
  logger: Logger;
}): Promise<RunningServices> {
  const { logger } = options;
  let lastFallbackLog = 0;
  const services: Services = {
    keyCache: new FreshnessCache({ ttlMs: FRESHNESS_MS, maxEntries: 100_000 }),
    rootKeyCache: new FreshnessCache({ ttlMs: FRESHNESS_MS, maxEntries: 10_000 }),
    rateLimiter: createRateLimitEngine({
      redisUrl: options.redisUrl,
      onFallback: (error) => {
        // At most one line every 10 s while Redis is away.
        if (Date.now() - lastFallbackLog < 10_000) return;
        lastFallbackLog = Date.now();
        logger.error('rate limiting fell back to this process (Redis unreachable)', { error: error.message });
      },
    }),
    credits: createCreditSpender(options.orm),
    verifications: createVerificationRecorder(options.orm, {
      onError: (error) => logger.error('could not record verifications; will retry', { error: String(error) }),
    }),
    now: Date.now,
  };
  const listener = await listenForInvalidations(options.databaseUrl, {
    onChange: (change) => evict(services, change),
    onReset: () => {
      services.keyCache.clear();
      services.rootKeyCache.clear();
    },
    onError: (error) =>
      logger.error('invalidation listener lost its connection; reconnecting', { error: error.message }),
  });
  return {
    services,
    async stop() {
      await listener.close();
      await services.verifications.close();
      await services.rateLimiter.close();
    },
  };
}

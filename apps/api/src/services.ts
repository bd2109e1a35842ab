import { DEFAULT_ANALYTICS_QUERIES_PER_HOUR, FreshnessCache } from '@keyplane/core';
import {
  createCreditSpender,
  createRatelimitRecorder,
  createRootKeyUsageTracker,
  createVerificationRecorder,
  listenForInvalidations,
  loadServerSecret,
  type Orm,
  type RetentionSchedule,
  scheduleAnalyticsRetention,
} from '@keyplane/db';
import { evict, type Services } from '@keyplane/procedures';
import { createRateLimitEngine } from '@keyplane/ratelimit';
import type { Logger } from './log.ts';

/**
 * How long a cached key or root key may be served without hearing from the database. Changes are
 * announced at once (NOTIFY); this bounds staleness if an announcement is ever missed.
 */
const FRESHNESS_MS = 1000;
/**
 * How long a change waits for every node to acknowledge its announcement before answering anyway:
 * the echo takes milliseconds; past the freshness window the caches have expired regardless.
 */
const DELIVERY_WAIT_MS = FRESHNESS_MS;

export interface RunningServices {
  services: Services;
  stop(): Promise<void>;
}

export async function startServices(options: {
  orm: Orm;
  databaseUrl: string;
  redisUrl?: string;
  logger: Logger;
  /** Deletes analytics events older than this many days, hourly; omitted (tests): nothing is deleted. */
  analyticsRetentionDays?: number;
  /** Omitted: the reference's 1000. */
  analyticsQueriesPerHour?: number;
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
    credits: createCreditSpender(options.databaseUrl),
    verifications: createVerificationRecorder(options.orm, {
      onError: (error) => logger.error('could not record verifications; will retry', { error: String(error) }),
      onRefused: (error) => logger.error('dropped a verification event the database refused', { error: String(error) }),
    }),
    ratelimitEvents: createRatelimitRecorder(options.orm, {
      onError: (error) => logger.error('could not record ratelimit decisions; will retry', { error: String(error) }),
      onRefused: (error) => logger.error('dropped a ratelimit event the database refused', { error: String(error) }),
    }),
    rootKeyUsage: createRootKeyUsageTracker(options.orm, {
      onError: (error) => logger.error('could not record root-key use; will retry', { error: String(error) }),
    }),
    analyticsQueriesPerHour: options.analyticsQueriesPerHour ?? DEFAULT_ANALYTICS_QUERIES_PER_HOUR,
    analyticsRetentionDays: options.analyticsRetentionDays,
    sessionSigningKey: await loadServerSecret(options.orm.em.fork(), 'dashboard_session_signing', 32),
    reportError: (message, error) => logger.error(message, { error: String(error) }),
    now: Date.now,
    announcementsDelivered: async () => {
      const caughtUp = await listener.everyNodeCaughtUp(options.orm.em.fork(), DELIVERY_WAIT_MS);
      if (caughtUp.acknowledged < caughtUp.listeners) {
        logger.error('not every node acknowledged a cache invalidation in time; their caches expire within 1 s', {
          ...caughtUp,
        });
      }
    },
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
  const retention: RetentionSchedule | undefined =
    options.analyticsRetentionDays === undefined
      ? undefined
      : scheduleAnalyticsRetention(options.orm, {
          retentionDays: options.analyticsRetentionDays,
          onError: (error) => logger.error('analytics retention failed; will retry', { error: String(error) }),
          onDone: ({ deleted }) => {
            const total = Object.values(deleted).reduce((sum, count) => sum + count, 0);
            if (total > 0) logger.info('analytics retention deleted expired rows', deleted);
          },
        });
  return {
    services,
    async stop() {
      await retention?.stop();
      await listener.close();
      await services.verifications.close();
      await services.ratelimitEvents.close();
      await services.rootKeyUsage.close();
      await services.credits.close();
      await services.rateLimiter.close();
    },
  };
}

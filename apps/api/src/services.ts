import { type AnalyticsLimits, createAnalyticsDatabase } from '@keyplane/analytics';
import { clearCaches, evict, listenForInvalidations } from '@keyplane/caches';
import type { Env } from '@keyplane/config';
import {
  ANALYTICS_QUOTA_WINDOW_SECONDS,
  DEFAULT_ANALYTICS_QUERIES_PER_HOUR,
  DEFAULT_WEBHOOK_ENDPOINTS_PER_WORKSPACE,
  DEFAULT_WORKSPACE_LIMITS,
  FreshnessCache,
  PORTAL_SESSION_WINDOW_SECONDS,
  SIGN_IN_THROTTLE_WINDOW_SECONDS,
  Tally,
  WORKSPACE_RATE_LIMIT_WINDOW_SECONDS,
  type WorkspaceLimits,
} from '@keyplane/core';
import { createCreditSpender, createRootKeyUsageTracker, loadServerSecret, type Orm } from '@keyplane/db';
import {
  createRatelimitRecorder,
  createVerificationRecorder,
  databaseIdOf,
  openEventSpool,
  type RetentionSchedule,
  ratelimitStream,
  scheduleAnalyticsRetention,
  startSpoolReplay,
  verificationStream,
} from '@keyplane/events';
import type { Services } from '@keyplane/procedures';
import { createQuotas, createRateLimitEngine, type RedisCluster, type RedisFailureMode } from '@keyplane/ratelimit';
import { startWebhookDelivery } from '@keyplane/webhooks';
import type { Logger } from './log.ts';
import { createInvitationMailer } from './mailer.ts';
import { createReadiness, type Readiness } from './readiness.ts';

/**
 * How long a cached key, root key, namespace or override may be served without hearing from the database. Changes are
 * announced at once (NOTIFY); this bounds staleness if an announcement is ever missed.
 */
const FRESHNESS_MS = 1000;
/**
 * How long a change waits for every node to acknowledge its announcement before answering anyway:
 * the echo takes milliseconds; past the freshness window the caches have expired regardless.
 */
const DELIVERY_WAIT_MS = FRESHNESS_MS;

/** What this node counted of its background work since it started, for the metrics (metrics.ts). */
export interface NodeCounts {
  /** Rate-limit checks answered without Redis because it was unreachable. */
  rateLimitFallbacks: number;
  /** Events the database refused (bad values), dropped for good: by stream. */
  refusedEvents: { verifications: number; ratelimits: number };
  /** Changes this node committed and announced to every node (settled before their call answered). */
  invalidationsSent: number;
  /** Of those, the ones every listening node acknowledged in time; the rest waited out DELIVERY_WAIT_MS. */
  invalidationsAcknowledged: number;
  /** Changes this node heard announced (its own and other nodes'). */
  invalidationsReceived: number;
}

export interface RunningServices {
  services: Services;
  /** What `GET /v2/readiness` answers (docs/contract.md, Transport). */
  readiness: Readiness;
  counts: NodeCounts;
  stop(): Promise<void>;
}

/** The workspace limits the configuration sets (docs/operations.md#limits). */
export function workspaceLimitsOf(env: Env): WorkspaceLimits {
  return {
    ratelimitNamespaces: env.LIMIT_RATELIMIT_NAMESPACES,
    ratelimitOverrides: env.LIMIT_RATELIMIT_OVERRIDES,
    ratelimitWildcardOverrides: env.LIMIT_RATELIMIT_WILDCARD_OVERRIDES,
    roles: env.LIMIT_ROLES,
    permissions: env.LIMIT_PERMISSIONS,
  };
}

export async function startServices(options: {
  orm: Orm;
  databaseUrl: string;
  redisUrl?: string;
  /** Instead of redisUrl: a Redis Cluster (docs/architecture.md, Redis Cluster). */
  redisCluster?: RedisCluster;
  /** What rate limits do while Redis is unreachable; omitted: `local`. */
  rateLimitRedisFailure?: RedisFailureMode;
  logger: Logger;
  /** Deletes analytics events older than this many days, hourly; omitted (tests): nothing is deleted. */
  analyticsRetentionDays?: number;
  /** Omitted: the reference's 1000. */
  analyticsQueriesPerHour?: number;
  /** Where verification and ratelimit events are spooled before they are answered (docs/operations.md#events-and-the-spool). */
  eventSpoolDir: string;
  /** Omitted: 1 GiB. */
  eventSpoolMaxBytes?: number;
  /** Where analytics queries run (a read replica, say); omitted: `databaseUrl`. */
  analyticsDatabaseUrl?: string;
  /** Connections kept for analytics queries; omitted: 1. */
  analyticsConnections?: number;
  /** Analytics queries one workspace may have running at once on this node (more wait); omitted: 2. */
  analyticsConcurrentQueries?: number;
  /** Analytics run time and database resources; omitted: ANALYTICS_LIMITS. */
  analyticsLimits?: Partial<AnalyticsLimits>;
  /** Webhook deliveries (docs/webhooks.md); omitted: public targets only, the documented retry schedule. */
  webhooks?: { allowPrivate: boolean; retryDelaysMs?: number[]; endpointsPerWorkspace?: number };
  /** What one workspace may hold (docs/contract.md#limits); omitted: the defaults. */
  limits?: WorkspaceLimits;
  /**
   * People's accounts (docs/team-accounts.md); omitted: links on the request's origin, root-key
   * sign-in allowed, no single sign-on, invitations not emailed. `smtp`: SMTP_URL and SMTP_FROM.
   */
  team?: { publicUrl?: string; rootKeySignIn?: boolean; sso?: boolean; smtp?: { url: string; from: string } };
}): Promise<RunningServices> {
  const { logger, rateLimitRedisFailure = 'local' } = options;
  let lastFallbackLog = 0;
  let lastSpoolErrorLog = 0;
  const counts: NodeCounts = {
    rateLimitFallbacks: 0,
    refusedEvents: { verifications: 0, ratelimits: 0 },
    invalidationsSent: 0,
    invalidationsAcknowledged: 0,
    invalidationsReceived: 0,
  };
  const databaseId = await databaseIdOf(options.orm.em.fork());
  const spool = await openEventSpool({
    dir: options.eventSpoolDir,
    databaseId,
    maxBytes: options.eventSpoolMaxBytes,
    onError: (error) => {
      // At most one line every 10 s while the disk refuses.
      if (Date.now() - lastSpoolErrorLog < 10_000) return;
      lastSpoolErrorLog = Date.now();
      logger.error('the event spool failed; events are still written from memory, but a crash may lose them', {
        error: String(error),
      });
    },
    onFull: (dropped) => logger.error('the event spool is full: deleted its oldest file', dropped),
  });
  const spoolReplay = startSpoolReplay(options.orm, spool, [verificationStream, ratelimitStream], {
    onError: (error) => logger.error('could not replay the event spool; will retry', { error: String(error) }),
    onRefused: (error) => logger.error('dropped a spooled event the database refused', { error: String(error) }),
    onDamaged: (segment, lines) => logger.error('skipped damaged lines of the event spool', { ...segment, lines }),
    onReplayed: (replayed) => logger.info('replayed the event spool of a stopped process', replayed),
  });
  // Per database: every node of a deployment shares its quotas, and deployments (test databases) sharing
  // one Redis do not.
  const quotas = createQuotas({
    redisUrl: options.redisUrl,
    redisCluster: options.redisCluster,
    keyPrefix: `keyplane:quota:${databaseId}:`,
  });
  const smtp = options.team?.smtp;
  const mailer = smtp && createInvitationMailer({ smtpUrl: smtp.url, from: smtp.from });
  const services: Services = {
    keyCache: new FreshnessCache({ ttlMs: FRESHNESS_MS, maxEntries: 100_000 }),
    rootKeyCache: new FreshnessCache({ ttlMs: FRESHNESS_MS, maxEntries: 10_000 }),
    namespaceCache: new FreshnessCache({ ttlMs: FRESHNESS_MS, maxEntries: 100_000 }),
    overrideCache: new FreshnessCache({ ttlMs: FRESHNESS_MS, maxEntries: 100_000 }),
    rateLimiter: createRateLimitEngine({
      redisUrl: options.redisUrl,
      redisCluster: options.redisCluster,
      redisFailure: rateLimitRedisFailure,
      onFallback: (error) => {
        counts.rateLimitFallbacks++;
        // At most one line every 10 s while Redis is away.
        if (Date.now() - lastFallbackLog < 10_000) return;
        lastFallbackLog = Date.now();
        logger.error('rate limits are answered without Redis (unreachable)', {
          error: error.message,
          RATELIMIT_REDIS_FAILURE: rateLimitRedisFailure,
        });
      },
    }),
    workspaceRateLimit: quotas.quota('workspace-api', WORKSPACE_RATE_LIMIT_WINDOW_SECONDS),
    analyticsQuota: quotas.quota('analytics-queries', ANALYTICS_QUOTA_WINDOW_SECONDS),
    signInThrottle: quotas.quota('failed-sign-ins', SIGN_IN_THROTTLE_WINDOW_SECONDS),
    portalSessionThrottle: quotas.quota('portal-sessions', PORTAL_SESSION_WINDOW_SECONDS),
    team: {
      publicUrl: options.team?.publicUrl,
      rootKeySignIn: options.team?.rootKeySignIn ?? true,
      sso: options.team?.sso ?? false,
      accountSignInThrottle: quotas.quota('failed-account-sign-ins', SIGN_IN_THROTTLE_WINDOW_SECONDS),
      mailer,
    },
    credits: createCreditSpender(options.databaseUrl),
    verifications: createVerificationRecorder(options.orm, spool, {
      onError: (error) => logger.error('could not record verifications; will retry', { error: String(error) }),
      onRefused: (error) => {
        counts.refusedEvents.verifications++;
        logger.error('dropped a verification event the database refused', { error: String(error) });
      },
    }),
    ratelimitEvents: createRatelimitRecorder(options.orm, spool, {
      onError: (error) => logger.error('could not record ratelimit decisions; will retry', { error: String(error) }),
      onRefused: (error) => {
        counts.refusedEvents.ratelimits++;
        logger.error('dropped a ratelimit event the database refused', { error: String(error) });
      },
    }),
    rootKeyUsage: createRootKeyUsageTracker(options.orm, {
      onError: (error) => logger.error('could not record root-key use; will retry', { error: String(error) }),
    }),
    analytics: createAnalyticsDatabase(options.analyticsDatabaseUrl ?? options.databaseUrl, {
      connections: options.analyticsConnections,
      queriesPerWorkspace: options.analyticsConcurrentQueries,
      limits: options.analyticsLimits,
    }),
    analyticsQueriesPerHour: options.analyticsQueriesPerHour ?? DEFAULT_ANALYTICS_QUERIES_PER_HOUR,
    analyticsRetentionDays: options.analyticsRetentionDays,
    outcomes: { verifications: new Tally(), ratelimitDecisions: new Tally() },
    limits: options.limits ?? DEFAULT_WORKSPACE_LIMITS,
    webhooksAllowPrivate: options.webhooks?.allowPrivate ?? false,
    webhookEndpointsPerWorkspace: options.webhooks?.endpointsPerWorkspace ?? DEFAULT_WEBHOOK_ENDPOINTS_PER_WORKSPACE,
    sessionSigningKey: await loadServerSecret(options.orm.em.fork(), 'dashboard_session_signing', 32),
    reportError: (message, error, requestId) => logger.error(message, { requestId, error: String(error) }),
    now: Date.now,
    announcementsDelivered: async () => {
      counts.invalidationsSent++;
      const caughtUp = await listener.everyNodeCaughtUp(options.orm.em.fork(), DELIVERY_WAIT_MS);
      if (caughtUp.acknowledged >= caughtUp.listeners) {
        counts.invalidationsAcknowledged++;
      } else {
        logger.error('not every node acknowledged a cache invalidation in time; their caches expire within 1 s', {
          ...caughtUp,
        });
      }
    },
  };
  // Said once at start: what the analytics database lets queries do, where it is less than it could.
  services.analytics.setup().then(
    (setup) => {
      if (!setup.role) {
        logger.error(
          'analytics queries run as the connecting user: the role keyplane_analytics is missing or not granted to it (docs/operations.md, Analytics role)',
        );
      }
      if (!setup.tempFileLimit) {
        logger.info(
          'analytics queries run without temp_file_limit: the connecting user may not set it (docs/operations.md, Analytics role)',
        );
      }
    },
    (error: unknown) =>
      logger.error('could not find out what the analytics database allows; will retry with the first query', {
        error: String(error),
      }),
  );
  const listener = await listenForInvalidations(options.databaseUrl, {
    onChange: (change) => {
      counts.invalidationsReceived++;
      evict(services, change);
    },
    onReset: () => clearCaches(services),
    onError: (error) =>
      logger.error('invalidation listener lost its connection; reconnecting', { error: error.message }),
  });
  const retention: RetentionSchedule | undefined =
    options.analyticsRetentionDays === undefined
      ? undefined
      : scheduleAnalyticsRetention(options.orm, {
          retentionDays: options.analyticsRetentionDays,
          onError: (error) => logger.error('analytics retention failed; will retry', { error: String(error) }),
          onDone: ({ deleted, dropped }) => {
            const total = Object.values(deleted).reduce((sum, count) => sum + count, 0);
            if (total > 0) logger.info('analytics retention deleted expired rows', deleted);
            if (dropped.length > 0) {
              logger.info('analytics retention dropped expired partitions', { partitions: dropped.join(', ') });
            }
          },
        });
  const webhooks = await startWebhookDelivery(options.databaseUrl, {
    allowPrivate: options.webhooks?.allowPrivate ?? false,
    retryDelaysMs: options.webhooks?.retryDelaysMs,
    onError: (error) => logger.error('webhook delivery failed; will retry', { error: String(error) }),
  });
  return {
    services,
    counts,
    readiness: createReadiness({
      orm: options.orm,
      rateLimiter: services.rateLimiter,
      redisConfigured: options.redisUrl !== undefined || options.redisCluster !== undefined,
    }),
    async stop() {
      await webhooks.close();
      await retention?.stop();
      await listener.close();
      await services.verifications.close();
      await services.ratelimitEvents.close();
      await spoolReplay.close();
      await services.rootKeyUsage.close();
      await services.credits.close();
      await services.rateLimiter.close();
      await quotas.close();
      await services.analytics.close();
      mailer?.close();
    },
  };
}

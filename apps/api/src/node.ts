import { Server as NetServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Env } from '@keyplane/config';
import { bootstrapIfEmpty, newSetupLink, setupLinkUrl } from '@keyplane/core';
import { createOrm, createSetupLink, migrate, pendingMigrations, workspaceStore } from '@keyplane/db';
import { type EmbeddedDatabase, startEmbeddedPostgres, takeOverShutdownSignals } from '@keyplane/embedded';
import { createHttpServer } from './http/app.ts';
import { createMetricsServer } from './http/metricsEndpoint.ts';
import { ssoConfigOf } from './http/sso.ts';
import { jsonLogger } from './log.ts';
import { createMetrics } from './metrics.ts';
import { startServices, workspaceLimitsOf } from './services.ts';

/** How long a stop waits for the last log lines to be written. */
const LOG_FLUSH_PATIENCE_MS = 5000;
/** How often a stop closes the keep-alive connections that have gone idle. */
const IDLE_CLOSE_INTERVAL_MS = 20;
/** How long a stop waits, once it takes no more connections, for the requests of those just taken. */
const LAST_REQUEST_GRACE_MS = 1000;

/** How long start-up waits for Redis to answer before it listens anyway (not ready until Redis answers). */
const REDIS_START_PATIENCE_MS = 5000;
/** How often start-up asks Redis meanwhile. */
const REDIS_START_POLL_MS = 50;

/** The dashboard's production build (`npm start` builds it first; the Docker image at build time). */
const DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));
const PORTAL_DIR = fileURLToPath(new URL('../../portal/dist', import.meta.url));

/**
 * One API node: the database (embedded unless DATABASE_URL), migrations, the services, the HTTP
 * listener (and the metrics one), until SIGTERM or SIGINT stops it (docs/architecture.md, A node's life).
 * `beforeExit` runs last, once everything else is closed (tracing flushes its spans there).
 */
export async function runNode(env: Env, beforeExit: () => Promise<void> = async () => {}): Promise<void> {
  const logger = jsonLogger(env.LOG_LEVEL);

  let embedded: EmbeddedDatabase | undefined;
  if (!env.DATABASE_URL) {
    logger.info('DATABASE_URL is not set: starting the embedded PostgreSQL', { dataDir: env.DATA_DIR });
    try {
      embedded = await startEmbeddedPostgres({
        dataDir: env.DATA_DIR,
        onError: (message) => logger.error('embedded postgres', { message }),
        onNotice: (message) => logger.info(`embedded postgres: ${message}`),
      });
    } catch (error) {
      // The container image leaves the embedded PostgreSQL out (docker/Dockerfile).
      logger.error('the embedded PostgreSQL could not start: set DATABASE_URL to a PostgreSQL', {
        error: error instanceof Error ? error.message : String(error),
      });
      await logger.flush();
      process.exit(1);
    }
    logger.info('using the embedded PostgreSQL (one machine only; set DATABASE_URL for production)');
  }
  const databaseUrl = env.DATABASE_URL ?? (embedded as EmbeddedDatabase).url;
  const orm = await createOrm(databaseUrl);
  if (env.MIGRATE_ON_START) {
    await migrate(orm);
    logger.info('database migrated');
  } else {
    const pending = await pendingMigrations(orm);
    if (pending.length > 0) {
      logger.error('the database is behind this version: run `npx keyplane migrate` (MIGRATE_ON_START=false)', {
        pending: pending.join(', '),
      });
      await orm.close();
      await embedded?.stop();
      await logger.flush();
      process.exit(1);
    }
  }
  if (!env.REDIS_URL && !env.REDIS_CLUSTER) {
    logger.info(
      'neither REDIS_URL nor REDIS_CLUSTER_NODES is set: rate limits and caches are in-process (one node only)',
    );
  }

  const bootstrapped = await orm.em.fork().transactional(async (tx) => {
    const created = await bootstrapIfEmpty(workspaceStore(tx), { name: 'default', masterKey: env.VAULT_MASTER_KEY });
    if (!created) return undefined;
    // The first owner's way in, made with the workspace so that exactly one start prints it.
    const link = newSetupLink(Date.now());
    await createSetupLink(tx, link);
    return { ...created, setupToken: link.token };
  });
  if (bootstrapped) {
    // Written straight to stdout: the lines logged before it go out first.
    await logger.flush();
    const base = `http://localhost:${env.PORT}`;
    const setupUrl = setupLinkUrl(env.PUBLIC_URL ?? base, bootstrapped.setupToken);
    process.stdout.write(
      [
        '',
        'Keyplane created a workspace and a root key with every permission. The root key is shown only now:',
        '',
        `  workspace: ${bootstrapped.workspaceId}`,
        `  root key:  ${bootstrapped.rootKey}`,
        `  vault:     ${bootstrapped.vault ? 'enabled' : 'off (set VAULT_MASTER_KEY, then run keyplane vault enable)'}`,
        '',
        `Sign in to the dashboard with it: ${base}/dashboard/`,
        '',
        'Or create the first owner, a person with an email and a password (valid 24 hours, usable once;',
        '`npx keyplane setup-link` prints a new one):',
        '',
        `  setup link: ${setupUrl}`,
        '',
        'Try it:',
        `  export ROOT_KEY=${bootstrapped.rootKey}`,
        `  curl -s -X POST ${base}/v2/apis.createApi -H "Authorization: Bearer $ROOT_KEY" \\`,
        `    -H 'Content-Type: application/json' -d '{"name":"my-api"}'`,
        '',
        '',
      ].join('\n'),
    );
  }

  const running = await startServices({
    orm,
    databaseUrl,
    redisUrl: env.REDIS_URL,
    redisCluster: env.REDIS_CLUSTER,
    rateLimitRedisFailure: env.RATELIMIT_REDIS_FAILURE,
    logger,
    analyticsRetentionDays: env.ANALYTICS_RETENTION_DAYS,
    analyticsQueriesPerHour: env.ANALYTICS_QUERIES_PER_HOUR,
    eventSpoolDir: env.EVENT_SPOOL_DIR,
    eventSpoolMaxBytes: env.EVENT_SPOOL_MAX_BYTES,
    analyticsDatabaseUrl: env.ANALYTICS_DATABASE_URL,
    analyticsConnections: env.ANALYTICS_POOL_SIZE,
    analyticsConcurrentQueries: env.ANALYTICS_MAX_CONCURRENT_QUERIES,
    analyticsLimits: {
      timeoutMs: env.ANALYTICS_QUERY_TIMEOUT_MS,
      workMemKb: env.ANALYTICS_WORK_MEM_MB * 1024,
      tempFileLimitKb: env.ANALYTICS_TEMP_FILE_LIMIT_MB * 1024,
    },
    webhooks: {
      allowPrivate: env.WEBHOOKS_ALLOW_PRIVATE,
      retryDelaysMs: env.WEBHOOKS_RETRY_DELAYS_MS,
      endpointsPerWorkspace: env.LIMIT_WEBHOOK_ENDPOINTS_PER_WORKSPACE,
    },
    limits: workspaceLimitsOf(env),
    team: {
      publicUrl: env.PUBLIC_URL,
      rootKeySignIn: env.DASHBOARD_ROOT_KEY_SIGNIN,
      // The configuration checks that the issuer comes with its client id and secret.
      sso: env.OIDC_ISSUER !== undefined,
      smtp: env.SMTP_URL === undefined ? undefined : { url: env.SMTP_URL, from: env.SMTP_FROM },
    },
  });
  // A node listening before its Redis connection is up would answer its first rate limits without
  // Redis and fail its readiness probe: it waits a moment for Redis, not for ever.
  if (!(await answersWithin(() => running.services.rateLimiter.ping(), REDIS_START_PATIENCE_MS))) {
    logger.error('Redis does not answer; listening without it, not ready until it answers', {
      waitedMs: REDIS_START_PATIENCE_MS,
    });
  }
  const metrics = createMetrics({ orm, services: running.services, counts: running.counts });
  const metricsAccess = { bearerToken: env.METRICS_TOKEN };
  const server = createHttpServer({
    orm,
    logger,
    errorsBaseUrl: env.ERRORS_BASE_URL,
    maxBodyBytes: env.MAX_BODY_BYTES,
    maxBatchSize: env.LIMIT_TRPC_BATCH_SIZE,
    vaultMasterKey: env.VAULT_MASTER_KEY,
    services: running.services,
    readiness: running.readiness,
    logRequests: env.LOG_REQUESTS,
    dashboardDir: DASHBOARD_DIR,
    portalDir: PORTAL_DIR,
    trustProxy: env.TRUST_PROXY,
    metrics,
    // With a METRICS_PORT, /metrics is served there only.
    metricsAccess: env.METRICS_PORT === undefined ? metricsAccess : undefined,
    sso: ssoConfigOf(env),
  });
  const metricsServer = env.METRICS_PORT === undefined ? undefined : createMetricsServer(metrics, metricsAccess);
  metricsServer?.listen(env.METRICS_PORT, env.HOST, () => {
    logger.info('metrics are served on their own port', { metrics: `http://localhost:${env.METRICS_PORT}/metrics` });
  });
  server.listen(env.PORT, env.HOST, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : env.PORT;
    logger.info('keyplane is listening', {
      port,
      url: `http://localhost:${port}`,
      dashboard: `http://localhost:${port}/dashboard/`,
    });
  });

  /**
   * The stop of docs/operations.md#rolling-restarts: answers every request that comes in for
   * SHUTDOWN_DRAIN_DELAY_MS, each closing its connection, while balancers see readiness 503 and stop
   * routing here; then stops taking connections and answers every request already under way,
   * closing keep-alive connections that are idle. Resolves false if some were still running at
   * `deadline` (unix ms; they are then cut off).
   */
  async function drainConnections(deadline: number, drainDelayMs: number): Promise<boolean> {
    const remaining = () => Math.max(0, deadline - Date.now());
    const atMost = (ms: number) => Math.min(ms, remaining());
    // Closing a keep-alive connection now would cut the request a client may be sending on it.
    await sleep(atMost(drainDelayMs));
    // net's close, not http's: http's would also close every connection that has no request under
    // way, among them one accepted a moment ago whose request is still on its way.
    const closed = new Promise<true>((resolve) => NetServer.prototype.close.call(server, () => resolve(true)));
    await Promise.race([closed, sleep(atMost(LAST_REQUEST_GRACE_MS))]);
    // A connection still idle now has no request coming: its client went elsewhere.
    const closingIdle = setInterval(() => server.closeIdleConnections(), IDLE_CLOSE_INTERVAL_MS);
    server.closeIdleConnections();
    const drained = await Promise.race([closed, sleep(remaining(), false)]);
    clearInterval(closingIdle);
    if (!drained) server.closeAllConnections();
    return drained;
  }

  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const deadline = Date.now() + env.SHUTDOWN_TIMEOUT_MS;
    // Balancers polling readiness stop sending requests; those under way are answered.
    running.readiness.stopping();
    // Ctrl-C is a person at a terminal, not a balancer that must first stop routing here.
    const drained = await drainConnections(deadline, signal === 'SIGINT' ? 0 : env.SHUTDOWN_DRAIN_DELAY_MS);
    metricsServer?.close();
    if (!drained) logger.error('requests still under way at SHUTDOWN_TIMEOUT_MS were cut off', { signal });
    // Buffered events are written before the database goes away (and the spool emptied).
    await running.stop();
    await orm.close();
    await embedded?.stop();
    await Promise.race([beforeExit(), sleep(LOG_FLUSH_PATIENCE_MS)]);
    logger.info('stopped', { signal });
    // Lines are written in batches: the last ones go out before the process ends, unless standard
    // output is no longer read, which must not keep the process from stopping.
    await Promise.race([logger.flush(), sleep(LOG_FLUSH_PATIENCE_MS)]);
    process.exit(drained ? 0 : 1);
  }
  takeOverShutdownSignals((signal) => void shutdown(signal));
}

/** Whether `ask` resolves within `patienceMs`, asking again every REDIS_START_POLL_MS while it rejects. */
async function answersWithin(ask: () => Promise<void>, patienceMs: number): Promise<boolean> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    try {
      await ask();
      return true;
    } catch {
      if (Date.now() >= deadline) return false;
      await sleep(REDIS_START_POLL_MS);
    }
  }
}

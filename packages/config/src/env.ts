import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The repository root, so `.data/` is found the same way by the server, the CLI and the tests. */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const masterKey = optionalString.transform((value, ctx) => {
  if (value === undefined) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (bytes.length !== 32) {
    ctx.addIssue({ code: 'custom', message: 'must be 32 bytes, written as 64 hex characters or base64' });
    return z.NEVER;
  }
  return bytes;
});

/**
 * The longest spool directory: each server process listens on `<dir>/<12 characters>.sock` there,
 * and a Unix socket path holds at most 103 bytes on macOS (107 on Linux).
 */
const MAX_SPOOL_DIR_BYTES = 85;

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(7070),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  REDIS_URL: optionalString.pipe(z.url({ protocol: /^rediss?$/ }).optional()),
  /** What rate limits do while Redis is unreachable: judged in each process, all passed, or all refused. */
  RATELIMIT_REDIS_FAILURE: z.enum(['local', 'open', 'closed']).default('local'),
  VAULT_MASTER_KEY: masterKey,
  ERRORS_BASE_URL: z.url().default('https://keyplane.dev/errors'),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  DATA_DIR: z.string().default(`${REPO_ROOT}.data`),
  /** Where each server process spools its events before answering; `<DATA_DIR>/spool` when unset. */
  EVENT_SPOOL_DIR: optionalString,
  /** The spool's bound per process; past it the oldest spooled events go first. */
  EVENT_SPOOL_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .default(1024 * 1024 * 1024),
  /** How long raw analytics events (and their rollups, to the end of their bucket) are kept. */
  ANALYTICS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** Analytics queries one workspace may run per hour, over all nodes (the reference's default). */
  ANALYTICS_QUERIES_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000_000).default(1000),
  /** Where analytics queries run, e.g. a read replica; unset: the main database. */
  ANALYTICS_DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  /** Connections each node keeps for analytics queries, apart from every other call's (each can keep a database core busy). */
  ANALYTICS_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(1),
  /** Analytics queries one workspace may have under way at once, on each node. */
  ANALYTICS_MAX_CONCURRENT_QUERIES: z.coerce.number().int().min(1).max(1000).default(2),
  /**
   * Behind a reverse proxy: take the client's address from the first X-Forwarded-For entry (what
   * throttles failed dashboard sign-ins by address), not from the connection, which is the proxy's.
   */
  TRUST_PROXY: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  LOG_REQUESTS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /**
   * How long a stop (SIGTERM) waits for the requests under way to be answered before it cuts them
   * off and exits non-zero.
   */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(25_000),
  /**
   * Whether the server applies pending migrations as it starts (under an advisory lock, so nodes may
   * start together). `false` leaves them to `keyplane migrate` (an init job); the server then refuses
   * to start on a database that is behind.
   */
  MIGRATE_ON_START: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /** The least severe log lines written (pino's levels); request lines are `info`. */
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
});

/** The spool directory defaults to one under DATA_DIR, and must fit in a socket path. */
const resolvedEnvSchema = envSchema.transform((env, ctx) => {
  const spoolDir = resolve(env.EVENT_SPOOL_DIR ?? join(env.DATA_DIR, 'spool'));
  if (Buffer.byteLength(spoolDir) > MAX_SPOOL_DIR_BYTES) {
    ctx.addIssue({
      code: 'custom',
      path: ['EVENT_SPOOL_DIR'],
      message: `must be a path of at most ${MAX_SPOOL_DIR_BYTES} bytes (it holds the Unix socket of each server process), not ${spoolDir}`,
    });
    return z.NEVER;
  }
  return { ...env, EVENT_SPOOL_DIR: spoolDir };
});

export type Env = z.output<typeof resolvedEnvSchema>;

export class EnvError extends Error {
  constructor(issues: string[]) {
    super(`Invalid configuration:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
    this.name = 'EnvError';
  }
}

/** Exit code for invalid configuration (EX_CONFIG from sysexits.h). */
export const CONFIG_ERROR_EXIT_CODE = 78;

function parse<TSchema extends z.ZodType>(schema: TSchema, source: Record<string, string | undefined>) {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    throw new EnvError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return parsed.data;
}

/** The one place that reads the environment. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  return parse(resolvedEnvSchema, source);
}

/** What `npm run bench` reads besides the server's own variables. */
const benchEnvSchema = z.object({
  /** Also measure every case with request logging off, to read off what logging costs. */
  BENCH_COMPARE_LOGGING: optionalString.pipe(
    z
      .enum(['0', '1'])
      .optional()
      .transform((value) => value === '1'),
  ),
});

export type BenchEnv = z.output<typeof benchEnvSchema>;

export function loadBenchEnv(source: Record<string, string | undefined> = process.env): BenchEnv {
  return parse(benchEnvSchema, source);
}

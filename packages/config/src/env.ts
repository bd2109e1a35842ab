import { isIP } from 'node:net';
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

/** A Redis Cluster, by some of its nodes (the client learns the others from them). */
interface RedisCluster {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
}

const CLUSTER_URL_PREFIX = 'redis+cluster://';
/** `host:port`: a name or an IPv4 address, or an IPv6 address in brackets. */
const CLUSTER_NODE = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:,[\]@/]+)):(\d{1,5})$/;

/** Comma-separated `host:port` nodes, or why not (undefined and an issue). */
function clusterNodes(list: string, ctx: z.RefinementCtx): RedisCluster['nodes'] | undefined {
  const nodes = [];
  for (const node of list.split(',')) {
    const match = CLUSTER_NODE.exec(node.trim());
    const port = Number(match?.[3]);
    if (match === null || port < 1 || port > 65535) {
      ctx.addIssue({ code: 'custom', message: `must list cluster nodes as host:port[,host:port…], not "${node}"` });
      return undefined;
    }
    nodes.push({ host: match[1] ?? match[2] ?? '', port });
  }
  return nodes;
}

function isPercentEncoded(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * REDIS_URL: one Redis server (`redis://`, `rediss://`) as its URL, or a Redis Cluster as
 * `redis+cluster://[user:password@]host:port[,host:port…]`.
 */
const redisUrl = optionalString.transform((value, ctx): string | RedisCluster | undefined => {
  if (value === undefined) return undefined;
  if (!value.startsWith(CLUSTER_URL_PREFIX)) {
    if (z.url({ protocol: /^rediss?$/ }).safeParse(value).success) return value;
    ctx.addIssue({
      code: 'custom',
      message: 'must be a redis:// or rediss:// URL, or redis+cluster://host:port[,host:port…] for a Redis Cluster',
    });
    return z.NEVER;
  }
  const parts = /^(?:([^@/]*)@)?([^@/?#]+)\/?$/.exec(value.slice(CLUSTER_URL_PREFIX.length));
  if (parts === null || !isPercentEncoded(parts[1] ?? '')) {
    ctx.addIssue({
      code: 'custom',
      message:
        'must be redis+cluster://[user:password@]host:port[,host:port…] (credentials percent-encoded; a cluster has no database number)',
    });
    return z.NEVER;
  }
  const [, credentials, list = ''] = parts;
  const nodes = clusterNodes(list, ctx);
  if (nodes === undefined) return z.NEVER;
  if (credentials === undefined) return { nodes };
  // Percent-encoded, as in any URL; the password is what follows the first colon.
  const colon = credentials.indexOf(':');
  const username = decodeURIComponent(colon < 0 ? credentials : credentials.slice(0, colon));
  const password = colon < 0 ? undefined : decodeURIComponent(credentials.slice(colon + 1));
  return { nodes, username: username || undefined, password };
});

/** A bound of docs/contract.md#limits: a whole number from 1 to `max`, `byDefault` when unset. */
const limitOf = (byDefault: number, max: number) => z.coerce.number().int().min(1).max(max).default(byDefault);

/**
 * Which proxies in front of the server are trusted to say who connected to them: none (`false`), a
 * number of hops (`true` is one), or the proxies' own addresses and CIDR ranges.
 */
export type TrustProxy = false | { hops: number } | { proxies: string[] };

/** `a.b.c.d[/n]` or an IPv6 address `[/n]`: n at most 32 or 128. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

const trustProxy = z
  .string()
  .default('false')
  .transform((value, ctx): TrustProxy => {
    const text = value.trim();
    if (text === 'false' || text === '' || text === '0') return false;
    if (text === 'true') return { hops: 1 };
    if (/^\d{1,2}$/.test(text)) return { hops: Number(text) };
    const proxies = text.split(',').map((entry) => entry.trim());
    const invalid = proxies.find((entry) => !isAddressOrRange(entry));
    if (invalid === undefined) return { proxies };
    ctx.addIssue({
      code: 'custom',
      message: `must be false, true (one proxy), a number of proxies (1–99), or the proxies' addresses and CIDR ranges separated by commas; "${invalid}" is none of these`,
    });
    return z.NEVER;
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
  REDIS_URL: redisUrl,
  /** A Redis Cluster by some of its nodes, `host:port[,host:port…]`: REDIS_URL's `redis+cluster://` without credentials. */
  REDIS_CLUSTER_NODES: optionalString.transform((value, ctx) => {
    if (value === undefined) return undefined;
    return clusterNodes(value, ctx) ?? z.NEVER;
  }),
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
  /** Analytics queries one workspace may run at once, on each node; its further ones wait their turn. */
  ANALYTICS_MAX_CONCURRENT_QUERIES: z.coerce.number().int().min(1).max(1000).default(2),
  /** How long an analytics query may run, in milliseconds; it may wait as long again for a connection. */
  ANALYTICS_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** Memory for each sort or hash of an analytics query, in MB (PostgreSQL's work_mem); past it, it spills to disk. */
  ANALYTICS_WORK_MEM_MB: z.coerce.number().int().min(1).max(16_384).default(4),
  /** Temporary files one analytics query may write, in MB (PostgreSQL's temp_file_limit; see docs/operations.md). */
  ANALYTICS_TEMP_FILE_LIMIT_MB: z.coerce.number().int().min(1).max(1_048_576).default(1024),
  /**
   * Behind reverse proxies: which X-Forwarded-For entry is the client's address (what throttles
   * failed dashboard sign-ins), since the connection's is the proxy's (docs/operations.md#client-addresses).
   */
  TRUST_PROXY: trustProxy,
  LOG_REQUESTS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /**
   * How long a stop (SIGTERM) may take, from the signal: requests still under way then are cut off
   * and the node exits non-zero.
   */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(25_000),
  /**
   * How long a stop keeps listening, readiness 503 and every answer closing its connection, so that
   * balancers stop routing here before the node refuses connections; then it drains what is under
   * way. Within SHUTDOWN_TIMEOUT_MS, which bounds the whole stop (docs/operations.md#rolling-restarts).
   * A SIGINT (Ctrl-C) skips the delay.
   */
  SHUTDOWN_DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  /**
   * Whether the server applies pending migrations as it starts (under an advisory lock, so nodes may
   * start together). `false` leaves them to `keyplane migrate` (an init job); the server then refuses
   * to start on a database that is behind.
   */
  MIGRATE_ON_START: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /**
   * Serves `/metrics` on a listener of its own at this port (on HOST), and not on PORT: a port the
   * firewall keeps for the scraper. Unset: `/metrics` is on PORT.
   */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** When set, scraping `/metrics` (on either port) takes `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /**
   * Where OpenTelemetry traces are sent (OTLP over HTTP, e.g. `http://collector:4318`). Unset: no
   * tracing at all, and none of its code is loaded.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  /**
   * Webhooks may go to loopback, private and link-local addresses (local development, tests).
   * Off by default: a workspace must not make the server call into its own network.
   */
  WEBHOOKS_ALLOW_PRIVATE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /**
   * The waits between a failing delivery's attempts, in milliseconds, comma-separated; unset: the
   * schedule of docs/webhooks.md (5 s up to 10 h, about 28 hours in all). Tests shorten it.
   */
  WEBHOOKS_RETRY_DELAYS_MS: optionalString.pipe(
    z
      .string()
      .regex(/^\d+(,\d+)*$/, 'must be milliseconds separated by commas, such as 1000,60000')
      .transform((list) => list.split(',').map(Number))
      .optional(),
  ),
  // What one workspace may hold, and what one request may ask (docs/contract.md#limits; raising
  // them: docs/operations.md#limits). Each is checked when rows are added, never when they are used.
  /** Live rate-limit namespaces per workspace. */
  LIMIT_RATELIMIT_NAMESPACES: limitOf(1000, 1_000_000),
  /** Live overrides per namespace, exact and wildcard together. */
  LIMIT_RATELIMIT_OVERRIDES: limitOf(10_000, 10_000_000),
  /** Live wildcard overrides per namespace: each identifier without one of its own is matched against every one. */
  LIMIT_RATELIMIT_WILDCARD_OVERRIDES: limitOf(100, 10_000),
  /** Roles per workspace. */
  LIMIT_ROLES: limitOf(1000, 1_000_000),
  /** Permissions per workspace. */
  LIMIT_PERMISSIONS: limitOf(10_000, 1_000_000),
  /**
   * Calls in one `/trpc` batch. At least 10: the dashboard and `@keyplane/client` send batches of up
   * to 10 calls.
   */
  LIMIT_TRPC_BATCH_SIZE: z.coerce
    .number()
    .int()
    .min(10, 'must be at least 10: the dashboard and @keyplane/client send batches of up to 10 calls')
    .max(1000)
    .default(10),
  /**
   * Webhook endpoints one workspace may have (docs/contract.md#limits): every event is written once
   * per matching endpoint in the transaction of the change, so this bounds what one change writes.
   */
  LIMIT_WEBHOOK_ENDPOINTS_PER_WORKSPACE: z.coerce.number().int().min(1).max(100_000).default(100),
  /**
   * The address people reach the service at (`https://keyplane.example.com`), used for the links it
   * makes: setup, invitations, password resets, the OIDC redirect URI. Unset: the address the
   * request was made to (and `http://localhost:<PORT>` where there is no request).
   */
  PUBLIC_URL: optionalString.pipe(
    z
      .url({ protocol: /^https?$/ })
      .transform((value) => value.replace(/\/+$/, ''))
      .optional(),
  ),
  /** Where invitation emails are sent through (`smtp://user:pass@host:587`, `smtps://…`); unset: the inviter copies the link. */
  SMTP_URL: optionalString.pipe(z.url({ protocol: /^smtps?$/ }).optional()),
  /** The sender of invitation emails. */
  SMTP_FROM: z.string().default('Keyplane <no-reply@keyplane.local>'),
  /** Single sign-on (docs/team-accounts.md): the OpenID provider's issuer URL; with the client id and secret it turns SSO on. */
  OIDC_ISSUER: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  OIDC_CLIENT_ID: optionalString,
  OIDC_CLIENT_SECRET: optionalString,
  /** The workspace people signing in by SSO join (its id); unset: the first workspace. */
  OIDC_WORKSPACE: optionalString,
  /** The claim that holds a person's groups, in the ID token or the userinfo answer. */
  OIDC_ROLE_CLAIM: z.string().min(1).default('groups'),
  /** Groups to roles, `group:role,group:role` (roles: owner, admin, member, viewer); the highest match wins. */
  OIDC_ROLE_MAP: optionalString.transform((value, ctx) => {
    const map: { group: string; role: 'owner' | 'admin' | 'member' | 'viewer' }[] = [];
    for (const entry of (value ?? '').split(',')) {
      if (entry.trim() === '') continue;
      const colon = entry.lastIndexOf(':');
      const group = entry.slice(0, colon).trim();
      const role = entry.slice(colon + 1).trim();
      if (colon < 1 || group === '' || !['owner', 'admin', 'member', 'viewer'].includes(role)) {
        ctx.addIssue({
          code: 'custom',
          message: `must map groups to roles as group:role[,group:role…] with a role of owner, admin, member or viewer, not "${entry.trim()}"`,
        });
        return z.NEVER;
      }
      map.push({ group, role: role as 'owner' | 'admin' | 'member' | 'viewer' });
    }
    return map;
  }),
  /** The role of an SSO person in no mapped group; unset: they are refused. */
  OIDC_DEFAULT_ROLE: optionalString.pipe(z.enum(['owner', 'admin', 'member', 'viewer']).optional()),
  /** Email domains SSO accepts, comma-separated (`example.com,example.org`); unset: any. */
  OIDC_ALLOWED_DOMAINS: optionalString.transform((value) =>
    value === undefined
      ? undefined
      : value
          .split(',')
          .map((domain) => domain.trim().toLowerCase().replace(/^@/, ''))
          .filter((domain) => domain !== ''),
  ),
  /** The scopes SSO asks for, space-separated. */
  OIDC_SCOPES: z.string().min(1).default('openid email profile'),
  /** `false` turns off signing in to the dashboard with a root key in every workspace. */
  DASHBOARD_ROOT_KEY_SIGNIN: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((value) => value === 'true' || value === '1'),
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
  const oidc = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET];
  if (oidc.some((value) => value !== undefined) && oidc.some((value) => value === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['OIDC_ISSUER'],
      message: 'single sign-on needs all three of OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET',
    });
    return z.NEVER;
  }
  return { ...env, EVENT_SPOOL_DIR: spoolDir };
});

/**
 * Redis as one server (REDIS_URL) or as a cluster (REDIS_CLUSTER, from REDIS_CLUSTER_NODES or a
 * `redis+cluster://` REDIS_URL), never both.
 */
const redisEnvSchema = resolvedEnvSchema.transform(({ REDIS_URL, REDIS_CLUSTER_NODES, ...env }, ctx) => {
  if (REDIS_URL !== undefined && REDIS_CLUSTER_NODES !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['REDIS_CLUSTER_NODES'], message: 'set either it or REDIS_URL, not both' });
    return z.NEVER;
  }
  const cluster = REDIS_CLUSTER_NODES === undefined ? undefined : { nodes: REDIS_CLUSTER_NODES };
  return typeof REDIS_URL === 'object'
    ? { ...env, REDIS_URL: undefined, REDIS_CLUSTER: REDIS_URL }
    : { ...env, REDIS_URL, REDIS_CLUSTER: cluster };
});

export type Env = z.output<typeof redisEnvSchema>;

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

/** The names of every variable loadEnv reads, recorded from the source it reads them from. */
export function variablesRead(): string[] {
  const names = new Set<string>();
  const recorder = new Proxy<Record<string, string | undefined>>(
    {},
    {
      get(_source, name) {
        if (typeof name === 'string') names.add(name);
        return undefined;
      },
    },
  );
  loadEnv(recorder);
  return [...names];
}

/** The one place that reads the environment. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  return parse(redisEnvSchema, source);
}

/** What `npm run bench` and `npm run soak` read besides the server's own variables. */
const benchEnvSchema = z.object({
  /** Also measure every case with request logging off, to read off what logging costs. */
  BENCH_COMPARE_LOGGING: optionalString.pipe(
    z
      .enum(['0', '1'])
      .optional()
      .transform((value) => value === '1'),
  ),
  /** How long the soak runs, in minutes (docs/scaling.md). */
  SOAK_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(10),
  /** Server processes the soak starts on one database and one Redis. */
  SOAK_NODES: z.coerce.number().int().min(1).max(16).default(3),
  /** The soak's keep-alive connections, spread over the nodes in turn. */
  SOAK_CONNECTIONS: z.coerce.number().int().min(1).max(10_000).default(48),
});

export type BenchEnv = z.output<typeof benchEnvSchema>;

export function loadBenchEnv(source: Record<string, string | undefined> = process.env): BenchEnv {
  return parse(benchEnvSchema, source);
}

import type { WorkspaceLimits } from '@keyplane/core';
import type { Services } from '@keyplane/procedures';
import type { Quota, RateLimitEngine } from '@keyplane/ratelimit';
import type { AppDeps } from '../src/http/app.ts';
import { silentLogger } from '../src/log.ts';
import { type Api, ERRORS_BASE_URL, MAX_BODY_BYTES, type Reply, type ReplyOf, TEST_MASTER_KEY } from './harness.ts';
import { serveHttp, type TestServer } from './httpServer.ts';
import type { InputOf, ProcedurePath } from './procedures.ts';

export interface Variant {
  /** The server clock, in ms; the test app's clock when absent. */
  now?: number;
  /** false: a server without `VAULT_MASTER_KEY`. */
  masterKey?: boolean;
  /** A larger body limit than the test app's, for inputs whose own limit is above it. */
  maxBodyBytes?: number;
  /** Another rate limiter, e.g. an in-memory one on a controlled clock (the Redis one uses Redis time). */
  rateLimiter?: RateLimitEngine;
  /** Another workspace API rate limit or analytics quota (a failing one, one without Redis). */
  workspaceRateLimit?: Quota;
  analyticsQuota?: Quota;
  /** Days of analytics the server keeps (the test app keeps everything). */
  analyticsRetentionDays?: number;
  /** Smaller workspace limits than the defaults, so that a test reaches one (docs/contract.md#limits). */
  limits?: Partial<WorkspaceLimits>;
}

/**
 * Another production server on the test app's database and services, differing in what `changed`
 * says (its database, logger, services…): for failures, logging and clocks a test controls.
 */
export function serveOn(api: Api, changed: Partial<AppDeps> = {}): Promise<TestServer> {
  return serveHttp({
    orm: api.orm,
    logger: silentLogger,
    errorsBaseUrl: ERRORS_BASE_URL,
    maxBodyBytes: MAX_BODY_BYTES,
    vaultMasterKey: TEST_MASTER_KEY,
    services: api.services,
    readiness: api.readiness,
    ...changed,
  });
}

/** Runs `use` against a server from `serveOn`, and stops that server afterwards. */
export async function withServerOn<T>(
  api: Api,
  changed: Partial<AppDeps>,
  use: (server: TestServer) => Promise<T>,
): Promise<T> {
  const server = await serveOn(api, changed);
  try {
    return await use(server);
  } finally {
    await server.close();
  }
}

/**
 * A server that shares the test app's database and caches but differs in its clock, master key,
 * body limit, rate limiter or analytics retention: for refill boundaries, vault preconditions,
 * large inputs, rate-limit windows and queries reaching past the retention.
 */
function variantDeps(api: Api, variant: Variant): Partial<AppDeps> {
  const { now, rateLimiter, workspaceRateLimit, analyticsQuota, analyticsRetentionDays, limits } = variant;
  const services: Services = {
    ...api.services,
    ...(now === undefined ? {} : { now: () => now }),
    ...(rateLimiter === undefined ? {} : { rateLimiter }),
    ...(workspaceRateLimit === undefined ? {} : { workspaceRateLimit }),
    ...(analyticsQuota === undefined ? {} : { analyticsQuota }),
    ...(analyticsRetentionDays === undefined ? {} : { analyticsRetentionDays }),
    ...(limits === undefined ? {} : { limits: { ...api.services.limits, ...limits } }),
  };
  return {
    services,
    ...(variant.maxBodyBytes === undefined ? {} : { maxBodyBytes: variant.maxBodyBytes }),
    ...(variant.masterKey === false ? { vaultMasterKey: undefined } : {}),
  };
}

/** POST, untyped, to a server of this variant: for bodies a procedure's type does not allow. */
export function postOn<TData = Record<string, unknown>>(
  api: Api,
  variant: Variant,
  procedure: string,
  body: unknown,
  rootKey: string,
): Promise<Reply<TData>> {
  return withServerOn(api, variantDeps(api, variant), (server) => server.post<TData>(procedure, body, rootKey));
}

/** Calls a procedure on a server of this variant with its input; its 200 body typed by the router. */
export function callOn<P extends ProcedurePath>(
  api: Api,
  variant: Variant,
  procedure: P,
  input: InputOf<P>,
  rootKey: string,
): Promise<ReplyOf<P>> {
  return withServerOn(api, variantDeps(api, variant), (server) => server.call(procedure, input, rootKey));
}

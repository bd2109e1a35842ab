import type { Services } from '@keyplane/procedures';
import type { RateLimitEngine } from '@keyplane/ratelimit';
import { createApp } from '../src/http/app.ts';
import { silentLogger } from '../src/log.ts';
import { type Api, ERRORS_BASE_URL, MAX_BODY_BYTES, type Reply, replyOf, TEST_MASTER_KEY } from './harness.ts';

export interface Variant {
  /** The server clock, in ms; the test app's clock when absent. */
  now?: number;
  /** false: a server without `VAULT_MASTER_KEY`. */
  masterKey?: boolean;
  /** A larger body limit than the test app's, for inputs whose own limit is above it. */
  maxBodyBytes?: number;
  /** Another rate limiter, e.g. an in-memory one on a controlled clock (the Redis one uses Redis time). */
  rateLimiter?: RateLimitEngine;
  /** Days of analytics the server keeps (the test app keeps everything). */
  analyticsRetentionDays?: number;
}

/**
 * POST to an app that shares the test app's database and caches but differs in its clock, master
 * key, body limit, rate limiter or analytics retention: for refill boundaries, vault preconditions,
 * large inputs, rate-limit windows and queries reaching past the retention.
 */
export async function postOn<TData = Record<string, unknown>>(
  api: Api,
  variant: Variant,
  procedure: string,
  body: unknown,
  rootKey: string,
): Promise<Reply<TData>> {
  const { now, rateLimiter, analyticsRetentionDays } = variant;
  const services: Services = {
    ...api.services,
    ...(now === undefined ? {} : { now: () => now }),
    ...(rateLimiter === undefined ? {} : { rateLimiter }),
    ...(analyticsRetentionDays === undefined ? {} : { analyticsRetentionDays }),
  };
  const app = createApp({
    orm: api.orm,
    logger: silentLogger,
    errorsBaseUrl: ERRORS_BASE_URL,
    maxBodyBytes: variant.maxBodyBytes ?? MAX_BODY_BYTES,
    vaultMasterKey: variant.masterKey === false ? undefined : TEST_MASTER_KEY,
    services,
  });
  const response = await app.request(`/v2/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify(body),
  });
  return replyOf<TData>(response);
}

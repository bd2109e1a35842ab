import type { Services } from '@keyplane/procedures';
import { createApp } from '../src/http/app.ts';
import { silentLogger } from '../src/log.ts';
import { type Api, ERRORS_BASE_URL, MAX_BODY_BYTES, type Reply, TEST_MASTER_KEY } from './harness.ts';

export interface Variant {
  /** The server clock, in ms; the test app's clock when absent. */
  now?: number;
  /** false: a server without `VAULT_MASTER_KEY`. */
  masterKey?: boolean;
  /** A larger body limit than the test app's, for inputs whose own limit is above it. */
  maxBodyBytes?: number;
}

/**
 * POST to an app that shares the test app's database and caches but differs in its clock or
 * master key or its body limit: for refill boundaries, vault preconditions and large inputs.
 */
export async function postOn<TData = Record<string, unknown>>(
  api: Api,
  variant: Variant,
  procedure: string,
  body: unknown,
  rootKey: string,
): Promise<Reply<TData>> {
  const { now } = variant;
  const services: Services = now === undefined ? api.services : { ...api.services, now: () => now };
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
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

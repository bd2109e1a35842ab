import { Redis } from 'ioredis';

/** Bounds how long a request waits on Redis before the fallback answers. */
const COMMAND_TIMEOUT_MS = 200;

/**
 * A connection for limits: commands fail at once while Redis is away (no offline queue, one retry,
 * a short timeout), so that a request is answered without Redis rather than kept waiting for it.
 */
export function connectRedis(redisUrl: string): Redis {
  const client = new Redis(redisUrl, {
    enableOfflineQueue: false,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // Off: callers already send one call per hash tag and wave, which auto-pipelining would not join
    // (each goes out from its own tick); it only added a pipeline object per call.
    enableAutoPipelining: false,
    maxRetriesPerRequest: 1,
  });
  // Without a listener ioredis prints connection errors itself; callers hear of them through their
  // commands' failures.
  client.on('error', () => {});
  return client;
}

export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    // A connection that has just broken may not say so yet: then there is nothing to quit.
    await client.quit().catch(() => client.disconnect());
  } else {
    client.disconnect();
  }
}

import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = 'redis://127.0.0.1:6379';

export function randomKeyPrefix(): string {
  return `test:ratelimit:${randomUUID()}:`;
}

export async function deleteKeysWithPrefix(keyPrefix: string): Promise<void> {
  const admin = new Redis(REDIS_URL);
  try {
    for await (const keys of admin.scanStream({ match: `${keyPrefix}*`, count: 1000 })) {
      if (Array.isArray(keys) && keys.length > 0) await admin.del(...keys.map(String));
    }
  } finally {
    await admin.quit();
  }
}

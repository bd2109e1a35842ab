import { randomBytes } from 'node:crypto';

const ID_PREFIXES = {
  workspace: 'ws',
  rootKey: 'rk',
  api: 'api',
  keySpace: 'ks',
  key: 'key',
  identity: 'id',
  permission: 'perm',
  role: 'role',
  ratelimit: 'rl',
  ratelimitNamespace: 'rlns',
  ratelimitOverride: 'rlor',
  migration: 'mig',
  request: 'req',
  session: 'sess',
  auditEvent: 'audit',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/**
 * 6 bytes of milliseconds then 10 random bytes, as fixed-width lowercase hex: ids sort by creation
 * time, never collide in practice, and sort the same under any database collation (digits before
 * a-f everywhere), so list pages in id order see rows added during a walk after the cursor.
 */
// One system call for many ids: every request mints at least one.
const POOL_BYTES = 16 * 256;
let pool = randomBytes(POOL_BYTES);
let poolOffset = 0;

function freshRandom16(): Buffer {
  if (poolOffset + 16 > POOL_BYTES) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  return bytes;
}

export function newId(kind: IdKind, now: number = Date.now()): string {
  const bytes = freshRandom16();
  bytes.writeUIntBE(now, 0, 6);
  return `${ID_PREFIXES[kind]}_${bytes.toString('hex')}`;
}

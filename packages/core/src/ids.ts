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
  user: 'usr',
  invitation: 'inv',
  passkey: 'pkey',
  passwordReset: 'pwr',
  portal: 'pc',
  portalSession: 'ps',
  // The database mints webhook events' and deliveries' ids in this format too (keyplane_new_id).
  webhookEndpoint: 'whep',
  webhookEvent: 'msg',
  webhookDelivery: 'whdl',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/**
 * 6 bytes of milliseconds then 10 random bytes, as fixed-width lowercase hex: ids sort by creation
 * time, never collide in practice, and sort the same under any database collation (digits before
 * a-f everywhere), so list pages in id order see rows added during a walk after the cursor. Within
 * one millisecond (or when the clock steps back) an id is the previous one plus one, so the ids one
 * process mints sort in the order it minted them, however fast.
 */
// One system call for many ids: every request mints at least one.
const RANDOM_BYTES = 10;
const POOL_BYTES = RANDOM_BYTES * 256;
let pool = randomBytes(POOL_BYTES);
let poolOffset = 0;
const previous = Buffer.alloc(6 + RANDOM_BYTES);
let previousMs = -1;

function nextIdBytes(): Buffer {
  const now = Date.now();
  if (now > previousMs) {
    if (poolOffset + RANDOM_BYTES > POOL_BYTES) {
      pool = randomBytes(POOL_BYTES);
      poolOffset = 0;
    }
    pool.copy(previous, 6, poolOffset, poolOffset + RANDOM_BYTES);
    poolOffset += RANDOM_BYTES;
    previous.writeUIntBE(now, 0, 6);
    previousMs = now;
    return previous;
  }
  for (let index = previous.length - 1; index >= 0; index--) {
    previous[index] = ((previous[index] ?? 0) + 1) & 0xff;
    if (previous[index] !== 0) break;
  }
  return previous;
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${nextIdBytes().toString('hex')}`;
}

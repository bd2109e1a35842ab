import { randomBytes } from 'node:crypto';
import { base58EncodeFixed } from './base58.ts';

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
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** 6 bytes of milliseconds then 10 random bytes: ids sort by creation time and never collide in practice. */
export function newId(kind: IdKind, now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  return `${ID_PREFIXES[kind]}_${base58EncodeFixed(bytes, 22)}`;
}

import type { RefillInterval } from '@keyplane/core';
import { defineEntity, p } from '@mikro-orm/core';
import { Api } from './Api.ts';
import { Identity } from './Identity.ts';
import { Workspace } from './Workspace.ts';

/** The longest hash the `keys.hash` column holds: ours are 44 characters, imported ones may be longer. */
export const MAX_KEY_HASH_LENGTH = 128;

export const KeySchema = defineEntity({
  name: 'Key',
  tableName: 'keys',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    api: () => p.manyToOne(Api).deleteRule('cascade'),
    /** SHA-256 of the full key; the hot path looks keys up by it. */
    hash: p.string().length(MAX_KEY_HASH_LENGTH).unique(),
    start: p.string().length(64),
    name: p.string().length(255).nullable(),
    identity: () => p.manyToOne(Identity).nullable().deleteRule('set null').index(),
    meta: p.json<Record<string, unknown>>().nullable(),
    expiresAt: p.datetime().nullable(),
    enabled: p.boolean().default(true),
    /** NULL means unlimited. */
    creditsRemaining: p.bigint('number').nullable(),
    refillInterval: p.string().length(16).nullable().$type<RefillInterval>(),
    refillAmount: p.bigint('number').nullable(),
    /** Day of the month for monthly refills; NULL for daily ones. */
    refillDay: p.smallint().nullable(),
    lastRefillAt: p.datetime().nullable(),
    /** The plaintext under the workspace's vault data key, only for recoverable keys. */
    ciphertext: p.text().nullable(),
    pendingMigrationId: p.string().length(255).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ['api', 'id'] },
    { properties: ['workspace', 'id'] },
    // The webhooks' expiry scan reads live keys by expiry (docs/webhooks.md).
    {
      name: 'keys_expires_at_live_index',
      properties: ['expiresAt'],
      where: { expiresAt: { $ne: null }, deletedAt: null },
    },
  ],
});

export class Key extends KeySchema.class {}
KeySchema.setClass(Key);

import { defineEntity, p } from '@mikro-orm/core';

/**
 * One row per verification, written in batches off the request path. No foreign keys: events
 * outlive the keys, APIs and identities they mention, for analytics.
 */
export const KeyVerificationSchema = defineEntity({
  name: 'KeyVerification',
  tableName: 'key_verifications',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    time: p.datetime(),
    requestId: p.string().length(64),
    workspaceId: p.string().length(64),
    apiId: p.string().length(64),
    keyId: p.string().length(64),
    identityId: p.string().length(64).nullable(),
    externalId: p.string().length(255).nullable(),
    outcome: p.string().length(32),
    tags: p.array(),
    spentCredits: p.bigint('number').default(0),
    latencyMs: p.double(),
  },
  indexes: [
    { properties: ['workspaceId', 'time'] },
    { properties: ['keyId', 'time'] },
    // Retention deletes the oldest events across workspaces; rows arrive in time order, so BRIN fits.
    { properties: ['time'], type: 'brin' },
  ],
});

export class KeyVerification extends KeyVerificationSchema.class {}
KeyVerificationSchema.setClass(KeyVerification);

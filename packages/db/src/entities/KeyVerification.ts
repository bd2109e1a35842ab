import { defineEntity, p } from '@mikro-orm/core';

/**
 * One row per verification, written in batches off the request path. No foreign keys: events
 * outlive the keys, APIs and identities they mention, for analytics. Partitioned by day on `time`,
 * by hand in its migration: the entity declares no `partitionBy`, so the schema diff leaves the
 * partitions to the migration and the retention (docs/architecture.md, Event tables).
 */
export const KeyVerificationSchema = defineEntity({
  name: 'KeyVerification',
  tableName: 'key_verifications',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    // In the key: a partitioned table's primary key must hold its partition key (docs/architecture.md, Event tables).
    time: p.datetime().primary(),
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
    // Finds the rows of the default partition that retention deletes; rows arrive in time order, so BRIN fits.
    { properties: ['time'], type: 'brin' },
  ],
});

export class KeyVerification extends KeyVerificationSchema.class {}
KeyVerificationSchema.setClass(KeyVerification);

import { defineEntity, p } from '@mikro-orm/core';

/**
 * Verification counts per time bucket, kept up to date by the event writer with every batch it
 * records (insert … on conflict do update), so analytics never aggregate raw events on read.
 * `time` is the bucket start in unix milliseconds (UTC). An absent identity or external id is
 * stored as '' so that it can take part in the primary key; the public tables show it as NULL.
 * `latency_sum` / `count` is the average latency; sums, unlike averages, add up across batches.
 */
function verificationRollup<TName extends string, TTable extends string>(name: TName, tableName: TTable) {
  return defineEntity({
    name,
    tableName,
    properties: {
      workspaceId: p.string().length(64).primary(),
      time: p.bigint('number').primary(),
      keyId: p.string().length(64).primary(),
      outcome: p.string().length(32).primary(),
      apiId: p.string().length(64).primary(),
      identityId: p.string().length(64).primary(),
      externalId: p.string().length(255).primary(),
      count: p.bigint('number'),
      spentCredits: p.bigint('number'),
      latencySum: p.double(),
    },
    // Retention deletes by time across workspaces: a BRIN index is tiny and enough for that.
    indexes: [{ properties: ['keyId', 'time'] }, { properties: ['time'], type: 'brin' }],
  });
}

/** Ratelimit decisions per time bucket, maintained like the verification rollups. */
function ratelimitRollup<TName extends string, TTable extends string>(name: TName, tableName: TTable) {
  return defineEntity({
    name,
    tableName,
    properties: {
      workspaceId: p.string().length(64).primary(),
      time: p.bigint('number').primary(),
      namespaceId: p.string().length(64).primary(),
      identifier: p.string().length(512).primary(),
      passed: p.boolean().primary(),
      count: p.bigint('number'),
    },
    indexes: [{ properties: ['time'], type: 'brin' }],
  });
}

export const KeyVerificationPerMinute = verificationRollup('KeyVerificationPerMinute', 'key_verifications_per_minute');
export const KeyVerificationPerHour = verificationRollup('KeyVerificationPerHour', 'key_verifications_per_hour');
export const KeyVerificationPerDay = verificationRollup('KeyVerificationPerDay', 'key_verifications_per_day');
export const KeyVerificationPerMonth = verificationRollup('KeyVerificationPerMonth', 'key_verifications_per_month');
export const RatelimitPerMinute = ratelimitRollup('RatelimitPerMinute', 'ratelimit_events_per_minute');
export const RatelimitPerHour = ratelimitRollup('RatelimitPerHour', 'ratelimit_events_per_hour');
export const RatelimitPerDay = ratelimitRollup('RatelimitPerDay', 'ratelimit_events_per_day');
export const RatelimitPerMonth = ratelimitRollup('RatelimitPerMonth', 'ratelimit_events_per_month');

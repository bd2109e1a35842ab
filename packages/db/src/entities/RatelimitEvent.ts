import { defineEntity, p } from '@mikro-orm/core';

/** One limit's decision within a call, as a call's further decisions are kept (the `further` column). */
export interface RatelimitDecision {
  namespaceId: string;
  identifier: string;
  limit: number;
  remaining: number;
  overrideId: string | null;
}

/**
 * One row per ratelimit.limit / multiLimit call, written in batches off the request path: its first
 * decision in the row's own columns, a multiLimit's others in `further` (RATELIMIT_DECISIONS in
 * ratelimitEvents.ts reads them as one row each). Partitioned by day on `time`, like
 * key_verifications (see KeyVerification.ts).
 */
export const RatelimitEventSchema = defineEntity({
  name: 'RatelimitEvent',
  tableName: 'ratelimit_events',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    // In the key: a partitioned table's primary key must hold its partition key (docs/architecture.md, Event tables).
    time: p.datetime().primary(),
    requestId: p.string().length(64),
    workspaceId: p.string().length(64),
    namespaceId: p.string().length(64),
    identifier: p.string().length(512),
    passed: p.boolean(),
    limit: p.integer(),
    remaining: p.integer(),
    overrideId: p.string().length(64).nullable(),
    latencyMs: p.double(),
    // Null for a call of one limit: most calls pay for no JSON.
    further: p.json<RatelimitDecision[]>().nullable(),
  },
  // No (namespace, time) index: every decision paid for it, a third of what PostgreSQL spends on
  // its row; a query for one namespace reads its workspace's rows of the time asked for
  // (docs/architecture.md, Event tables).
  indexes: [
    { properties: ['workspaceId', 'time'] },
    // Finds the rows of the default partition that retention deletes; rows arrive in time order, so BRIN fits.
    { properties: ['time'], type: 'brin' },
  ],
});

export class RatelimitEvent extends RatelimitEventSchema.class {}
RatelimitEventSchema.setClass(RatelimitEvent);

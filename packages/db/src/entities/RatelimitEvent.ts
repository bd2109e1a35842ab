import { defineEntity, p } from '@mikro-orm/core';

/** One row per ratelimit.limit / multiLimit decision, written in batches off the request path. */
export const RatelimitEventSchema = defineEntity({
  name: 'RatelimitEvent',
  tableName: 'ratelimit_events',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    time: p.datetime(),
    requestId: p.string().length(64),
    workspaceId: p.string().length(64),
    namespaceId: p.string().length(64),
    identifier: p.string().length(512),
    passed: p.boolean(),
    limit: p.integer(),
    remaining: p.integer(),
    overrideId: p.string().length(64).nullable(),
    latencyMs: p.double(),
  },
  indexes: [
    { properties: ['workspaceId', 'time'] },
    { properties: ['namespaceId', 'time'] },
    // Retention deletes the oldest events across workspaces; rows arrive in time order, so BRIN fits.
    { properties: ['time'], type: 'brin' },
  ],
});

export class RatelimitEvent extends RatelimitEventSchema.class {}
RatelimitEventSchema.setClass(RatelimitEvent);

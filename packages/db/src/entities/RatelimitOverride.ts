import { defineEntity, p } from '@mikro-orm/core';
import { RatelimitNamespace } from './RatelimitNamespace.ts';

export const RatelimitOverrideSchema = defineEntity({
  name: 'RatelimitOverride',
  tableName: 'ratelimit_overrides',
  properties: {
    id: p.string().length(64).primary(),
    namespace: () => p.manyToOne(RatelimitNamespace).deleteRule('cascade'),
    identifier: p.string().length(512),
    limit: p.integer(),
    durationMs: p.bigint('number'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
  uniques: [
    { name: 'ratelimit_overrides_live_unique', properties: ['namespace', 'identifier'], where: { deletedAt: null } },
  ],
});
export class RatelimitOverride extends RatelimitOverrideSchema.class {}
RatelimitOverrideSchema.setClass(RatelimitOverride);

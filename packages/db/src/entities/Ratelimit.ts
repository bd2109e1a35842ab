import { defineEntity, p } from '@mikro-orm/core';
import { Identity } from './Identity.ts';
import { Key } from './Key.ts';
import { Workspace } from './Workspace.ts';

/** A named limit configured on a key or on an identity (exactly one of the two). */
export const RatelimitSchema = defineEntity({
  name: 'Ratelimit',
  tableName: 'ratelimits',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    key: () => p.manyToOne(Key).nullable().deleteRule('cascade'),
    identity: () => p.manyToOne(Identity).nullable().deleteRule('cascade'),
    name: p.string().length(128),
    limit: p.integer(),
    durationMs: p.bigint('number'),
    autoApply: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().nullable(),
  },
  uniques: [{ properties: ['key', 'name'] }, { properties: ['identity', 'name'] }],
});

export class Ratelimit extends RatelimitSchema.class {}
RatelimitSchema.setClass(Ratelimit);

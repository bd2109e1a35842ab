import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './Workspace.ts';

export const RootKeySchema = defineEntity({
  name: 'RootKey',
  tableName: 'root_keys',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade').index(),
    name: p.string().length(255).nullable(),
    hash: p.string().length(64).unique(),
    start: p.string().length(32),
    permissions: p.array(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});

export class RootKey extends RootKeySchema.class {}
RootKeySchema.setClass(RootKey);

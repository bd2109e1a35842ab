import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './Workspace.ts';

export const ApiSchema = defineEntity({
  name: 'Api',
  tableName: 'apis',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    name: p.string().length(255),
    keyAuthEnabled: p.boolean().default(true),
    encryptionEnabled: p.boolean().default(false),
    defaultPrefix: p.string().length(16).nullable(),
    defaultBytes: p.integer().nullable(),
    deleteProtection: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['workspace', 'id'] }],
});

export class Api extends ApiSchema.class {}
ApiSchema.setClass(Api);

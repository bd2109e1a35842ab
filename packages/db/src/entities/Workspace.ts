import { defineEntity, p } from '@mikro-orm/core';

const WorkspaceSchema = defineEntity({
  name: 'Workspace',
  tableName: 'workspaces',
  properties: {
    id: p.string().length(64).primary(),
    name: p.string().length(255),
    createdAt: p.datetime().onCreate(() => new Date()),
    deletedAt: p.datetime().nullable(),
  },
});

export class Workspace extends WorkspaceSchema.class {}
WorkspaceSchema.setClass(Workspace);

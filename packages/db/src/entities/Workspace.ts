import { defineEntity, p } from '@mikro-orm/core';

const WorkspaceSchema = defineEntity({
  name: 'Workspace',
  tableName: 'workspaces',
  properties: {
    id: p.string().length(64).primary(),
    name: p.string().length(255),
    createdAt: p.datetime().onCreate(() => new Date()),
    deletedAt: p.datetime().nullable(),
    /** Requests per minute the workspace's root keys may make; null: no limit (the reference's default). */
    apiRequestsPerMinute: p.integer().nullable(),
  },
});

export class Workspace extends WorkspaceSchema.class {}
WorkspaceSchema.setClass(Workspace);

import { defineEntity, p } from '@mikro-orm/core';

export const WorkspaceSchema = defineEntity({
  name: 'Workspace',
  tableName: 'workspaces',
  properties: {
    id: p.string().length(64).primary(),
    name: p.string().length(255),
    createdAt: p.datetime().onCreate(() => new Date()),
    deletedAt: p.datetime().nullable(),
    /** Requests per minute the workspace's root keys may make; null: no limit (the reference's default). */
    apiRequestsPerMinute: p.integer().nullable(),
    /** Whether the dashboard takes a root key as a sign-in here (an owner may turn it off; DASHBOARD_ROOT_KEY_SIGNIN=false turns it off everywhere). */
    rootKeySignIn: p.boolean().default(true),
  },
  checks: [{ name: 'workspaces_api_requests_per_minute_check', expression: '"api_requests_per_minute" >= 0' }],
});

export class Workspace extends WorkspaceSchema.class {}
WorkspaceSchema.setClass(Workspace);

import { defineEntity, p } from '@mikro-orm/core';
import { RootKey } from './RootKey.ts';
import { Workspace } from './Workspace.ts';

/** A dashboard sign-in: the browser holds a signed token whose hash is stored here, never the root key. */
export const DashboardSessionSchema = defineEntity({
  name: 'DashboardSession',
  tableName: 'dashboard_sessions',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade').index(),
    rootKey: () => p.manyToOne(RootKey).deleteRule('cascade').index(),
    tokenHash: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
  },
});

export class DashboardSession extends DashboardSessionSchema.class {}
DashboardSessionSchema.setClass(DashboardSession);

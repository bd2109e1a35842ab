import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './Workspace.ts';

export const RatelimitNamespaceSchema = defineEntity({
  name: 'RatelimitNamespace',
  tableName: 'ratelimit_namespaces',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    name: p.string().length(512),
    createdAt: p.datetime().onCreate(() => new Date()),
    deletedAt: p.datetime().nullable(),
  },
  uniques: [{ properties: ['workspace', 'name'] }],
});
export class RatelimitNamespace extends RatelimitNamespaceSchema.class {}
RatelimitNamespaceSchema.setClass(RatelimitNamespace);

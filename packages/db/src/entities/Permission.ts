import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './Workspace.ts';

export const PermissionSchema = defineEntity({
  name: 'Permission',
  tableName: 'permissions',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    name: p.string().length(512),
    slug: p.string().length(128),
    description: p.string().length(512).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().nullable(),
  },
  uniques: [{ properties: ['workspace', 'slug'] }],
  // permissions.list* walk one workspace in id order.
  indexes: [{ properties: ['workspace', 'id'] }],
});

export class Permission extends PermissionSchema.class {}
PermissionSchema.setClass(Permission);

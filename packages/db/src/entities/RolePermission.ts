import { defineEntity, p } from '@mikro-orm/core';
import { Permission } from './Permission.ts';
import { Role } from './Role.ts';

export const RolePermissionSchema = defineEntity({
  name: 'RolePermission',
  tableName: 'roles_permissions',
  properties: {
    role: () => p.manyToOne(Role).primary().deleteRule('cascade'),
    permission: () => p.manyToOne(Permission).primary().deleteRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export class RolePermission extends RolePermissionSchema.class {}
RolePermissionSchema.setClass(RolePermission);

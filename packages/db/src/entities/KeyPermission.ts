import { defineEntity, p } from '@mikro-orm/core';
// Link rows are removed with either side: permissions and roles are hard-deleted.
import { Key } from './Key.ts';
import { Permission } from './Permission.ts';

export const KeyPermissionSchema = defineEntity({
  name: 'KeyPermission',
  tableName: 'keys_permissions',
  properties: {
    key: () => p.manyToOne(Key).primary().deleteRule('cascade'),
    permission: () => p.manyToOne(Permission).primary().deleteRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export class KeyPermission extends KeyPermissionSchema.class {}
KeyPermissionSchema.setClass(KeyPermission);

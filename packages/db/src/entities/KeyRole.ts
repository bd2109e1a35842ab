import { defineEntity, p } from '@mikro-orm/core';
import { Key } from './Key.ts';
import { Role } from './Role.ts';

export const KeyRoleSchema = defineEntity({
  name: 'KeyRole',
  tableName: 'keys_roles',
  properties: {
    key: () => p.manyToOne(Key).primary().deleteRule('cascade'),
    role: () => p.manyToOne(Role).primary().deleteRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export class KeyRole extends KeyRoleSchema.class {}
KeyRoleSchema.setClass(KeyRole);

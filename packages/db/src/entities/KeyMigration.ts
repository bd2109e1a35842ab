import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './Workspace.ts';

/** An import of keys hashed by another system (keys.migrateKeys). */
export const KeyMigrationSchema = defineEntity({
  name: 'KeyMigration',
  tableName: 'key_migrations',
  properties: {
    id: p.string().length(255).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade').index(),
    algorithm: p.string().length(64),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export class KeyMigration extends KeyMigrationSchema.class {}
KeyMigrationSchema.setClass(KeyMigration);

import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './Workspace.ts';

/** A workspace's data key, wrapped by the server's master key. Its presence means "vault set up". */
export const VaultKeySchema = defineEntity({
  name: 'VaultKey',
  tableName: 'vault_keys',
  properties: {
    workspace: () => p.oneToOne(Workspace).primary().deleteRule('cascade'),
    wrappedKey: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class VaultKey extends VaultKeySchema.class {}
VaultKeySchema.setClass(VaultKey);

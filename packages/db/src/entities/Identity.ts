import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './Workspace.ts';

export const IdentitySchema = defineEntity({
  name: 'Identity',
  tableName: 'identities',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    externalId: p.string().length(255),
    meta: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
  // externalId is unique among live identities only, so a deleted one's externalId can be reused.
  uniques: [
    { name: 'identities_live_external_id_unique', properties: ['workspace', 'externalId'], where: { deletedAt: null } },
  ],
  indexes: [{ properties: ['workspace', 'id'] }],
});

export class Identity extends IdentitySchema.class {}
IdentitySchema.setClass(Identity);

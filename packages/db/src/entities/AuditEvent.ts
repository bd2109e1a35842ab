import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './Workspace.ts';

/** One change made through the service: which procedure, by which root key, to which resources. */
export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    time: p.datetime().onCreate(() => new Date()),
    rootKeyId: p.string().length(64).nullable(),
    event: p.string().length(128),
    resources: p.json<Record<string, string>>(),
  },
  indexes: [{ properties: ['workspace', 'id'] }],
});

export class AuditEvent extends AuditEventSchema.class {}
AuditEventSchema.setClass(AuditEvent);

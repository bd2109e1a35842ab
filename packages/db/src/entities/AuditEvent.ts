import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './Workspace.ts';

/** What an audit event says besides its ids: the names of what it touched and what it changed. */
export interface AuditDetails {
  /** Each resource's name when the change was made, by the kind of its id (`keyId`, `apiId`, …). */
  names?: Record<string, string>;
  /** Each setting the change altered, with its value before and after. */
  changes?: AuditFieldChange[];
  /** How a person signed in, on sign-in events (`sso`, …). */
  method?: string;
  /** Why a sign-in was refused, in the words the person was shown; never a secret. */
  reason?: string;
  /** The address a refused sign-in was made with, which may have no account. */
  email?: string;
}

export interface AuditFieldChange {
  /** The kind of id of the resource changed (`keyId`, `apiId`, …). */
  resource: string;
  /** The setting, such as `name`, `enabled`, `credits`. */
  field: string;
  before: unknown;
  after: unknown;
}

/** One change made through the service: which procedure, by which root key or person, to which resources. */
export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    time: p.datetime().onCreate(() => new Date()),
    rootKeyId: p.string().length(64).nullable(),
    /** The person who made the change in the dashboard; null for a root key's change. */
    actorUserId: p.string().length(64).nullable(),
    /** Their email as it was then, so the entry still names them after they are gone. */
    actorEmail: p.string().length(320).nullable(),
    /** The customer who made the change in a portal (their externalId), and the portal. */
    actorExternalId: p.string().length(255).nullable(),
    actorPortalId: p.string().length(64).nullable(),
    event: p.string().length(128),
    resources: p.json<Record<string, string>>(),
    /** Recorded since the audit log names and compares; older events have none. */
    details: p.json<AuditDetails>().nullable(),
    /** The caller's network address, where the transport knew it. */
    clientAddress: p.string().length(64).nullable(),
  },
  indexes: [{ properties: ['workspace', 'id'] }],
});

export class AuditEvent extends AuditEventSchema.class {}
AuditEventSchema.setClass(AuditEvent);

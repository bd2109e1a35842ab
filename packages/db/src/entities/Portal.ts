import { defineEntity, p } from '@mikro-orm/core';
import { Api } from './Api.ts';
import { Workspace } from './Workspace.ts';

/**
 * What keys a portal's customers create carry (docs/portal.md): in the shapes keys.createKey takes,
 * as validated there, plus the most keys one customer may hold on the portal's API.
 */
export interface PortalKeyPolicy {
  prefix?: string;
  byteLength?: number;
  credits?: {
    remaining: number | null;
    refill?: { interval: 'daily' | 'monthly'; amount: number; refillDay: number | null };
  };
  ratelimits?: { name: string; limit: number; durationMs: number; autoApply: boolean }[];
  maxLifetimeMs?: number;
  maxKeysPerCustomer?: number;
}

/** A customer key portal of one API: its branding and the policy of the keys customers create. */
export const PortalSchema = defineEntity({
  name: 'Portal',
  tableName: 'portals',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    api: () => p.manyToOne(Api).deleteRule('cascade').index(),
    displayName: p.string().length(255),
    slug: p.string().length(64),
    logoUrl: p.string().length(2048).nullable(),
    primaryColor: p.string().length(7).nullable(),
    supportUrl: p.string().length(2048).nullable(),
    enabled: p.boolean().default(true),
    keyPolicy: p.json<PortalKeyPolicy>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
  // Unique among live portals only, so a deleted portal's slug can be used again.
  uniques: [{ name: 'portals_live_slug_unique', properties: ['workspace', 'slug'], where: { deletedAt: null } }],
  indexes: [{ properties: ['workspace', 'id'] }],
});
export class Portal extends PortalSchema.class {}
PortalSchema.setClass(Portal);

/**
 * One customer's session on a portal: opened by the provider (a root key) with a single-use code,
 * exchanged for an access token. Both are stored as their SHA-256 only.
 */
export const PortalSessionSchema = defineEntity({
  name: 'PortalSession',
  tableName: 'portal_sessions',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    portal: () => p.manyToOne(Portal).deleteRule('cascade'),
    externalId: p.string().length(255),
    /** `keys:read`, `keys:create`, … (docs/portal.md#scopes). */
    scopes: p.array(),
    /** Opened by the dashboard's "preview as a customer". */
    preview: p.boolean().default(false),
    returnUrl: p.string().length(2048).nullable(),
    codeHash: p.string().length(64).unique(),
    codeExpiresAt: p.datetime(),
    accessTokenHash: p.string().length(64).unique().nullable(),
    accessExpiresAt: p.datetime().nullable(),
    /** The root key that opened it; null once the dashboard or a person did. */
    createdByRootKeyId: p.string().length(64).nullable(),
    exchangedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['portal', 'externalId'] }, { properties: ['workspace', 'id'] }],
});
export class PortalSession extends PortalSessionSchema.class {}
PortalSessionSchema.setClass(PortalSession);

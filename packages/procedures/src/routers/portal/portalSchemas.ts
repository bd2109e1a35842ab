import { isSafePortalUrl, PORTAL_SCOPES } from '@keyplane/core';
import type { PortalKeyPolicy, PortalRecord } from '@keyplane/db';
import { z } from 'zod';
import {
  creditsSchema,
  externalIdSchema,
  keyByteLengthSchema,
  keyPrefixSchema,
  MAX_EXPIRES,
  ratelimitsSchema,
  resourceIdSchema,
  textSchema,
} from '../../schemas.ts';

// The portal.* procedures' shared fields (docs/portal.md).

export const portalIdSchema = resourceIdSchema;

export const portalDisplayNameSchema = textSchema.min(1).max(255);

export const portalSlugSchema = z
  .string()
  .min(3)
  .max(64)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'may contain only lower-case letters, digits and inner hyphens');

/** Branding shown on the customer's page: an `https` URL only, never a script or a data URL. */
export const httpsUrlSchema = z
  .string()
  .max(2048)
  .refine((url) => isSafePortalUrl(url, { allowLoopback: false }), 'must be an https:// URL');

/** A colour as a hex value (`#1a2b3c`): the page puts it in a style only as such. */
export const primaryColorSchema = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour such as #1a2b3c')
  .transform((colour) => colour.toLowerCase());

/** The keys customers create, in the shapes keys.createKey takes (its own schemas). */
export const keyPolicySchema = z
  .strictObject({
    prefix: keyPrefixSchema.optional(),
    byteLength: keyByteLengthSchema.optional(),
    credits: creditsSchema.optional(),
    ratelimits: ratelimitsSchema.optional(),
    /** Keys created in the portal expire this long after their creation. */
    maxLifetimeMs: z.number().int().min(60_000).max(MAX_EXPIRES).optional(),
    /** The most live keys one customer may hold on the portal's API through the portal. */
    maxKeysPerCustomer: z.number().int().min(1).max(1000).optional(),
  })
  .meta({ id: 'PortalKeyPolicyInput' });

/** The policy as the portal answers it: in keys.getKey's shapes. */
export const keyPolicyOutput = z
  .object({
    prefix: z.string().optional(),
    byteLength: z.number().optional(),
    credits: z
      .object({
        remaining: z.number().nullable(),
        refill: z
          .object({ interval: z.enum(['daily', 'monthly']), amount: z.number(), refillDay: z.number().nullable() })
          .optional(),
      })
      .optional(),
    ratelimits: z
      .array(z.object({ name: z.string(), limit: z.number(), duration: z.number(), autoApply: z.boolean() }))
      .optional(),
    maxLifetimeMs: z.number().optional(),
    maxKeysPerCustomer: z.number().optional(),
  })
  .meta({ id: 'PortalKeyPolicy' });

export const portalScopeSchema = z.enum(PORTAL_SCOPES);

export { externalIdSchema };

export const portalOutput = z
  .object({
    portalId: z.string(),
    apiId: z.string(),
    displayName: z.string(),
    slug: z.string(),
    logoUrl: z.string().nullable(),
    primaryColor: z.string().nullable(),
    supportUrl: z.string().nullable(),
    enabled: z.boolean(),
    keyPolicy: keyPolicyOutput,
    createdAt: z.number(),
    updatedAt: z.number().nullable(),
  })
  .meta({ id: 'Portal' });

export function portalData(portal: PortalRecord): z.infer<typeof portalOutput> {
  return {
    portalId: portal.id,
    apiId: portal.apiId,
    displayName: portal.displayName,
    slug: portal.slug,
    logoUrl: portal.logoUrl,
    primaryColor: portal.primaryColor,
    supportUrl: portal.supportUrl,
    enabled: portal.enabled,
    keyPolicy: policyData(portal.keyPolicy),
    createdAt: portal.createdAt,
    updatedAt: portal.updatedAt,
  };
}

/** The policy as stored: what keys.createKey's schemas made of it. */
export const storedKeyPolicy = (policy: z.output<typeof keyPolicySchema>): PortalKeyPolicy => ({
  ...policy,
  ...(policy.credits && {
    credits: { remaining: policy.credits.remaining, ...(policy.credits.refill && { refill: policy.credits.refill }) },
  }),
});

function policyData(policy: PortalKeyPolicy): z.infer<typeof keyPolicyOutput> {
  const { ratelimits, ...rest } = policy;
  return {
    ...rest,
    ...(ratelimits && {
      ratelimits: ratelimits.map(({ durationMs, ...limit }) => ({ ...limit, duration: durationMs })),
    }),
  };
}

import { type CreditsState, decryptKeyMaterial, effectiveRemaining, type RatelimitConfig } from '@keyplane/core';
import type { IdentityRecord, KeyDetails, KeyTableRow } from '@keyplane/db';
import { z } from 'zod';

// `KeyResponseData` (docs/contract.md#key-data), shared by keys.getKey, keys.whoami and apis.listKeys.
// Empty and null fields are omitted.

const metaOutput = z.record(z.string(), z.unknown());

const ratelimitOutput = z.object({
  id: z.string(),
  name: z.string(),
  limit: z.number().int(),
  duration: z.number().int(),
  autoApply: z.boolean(),
});

/** `Identity` (docs/contract.md#identities): also what identities.* answer. */
export const identityOutput = z
  .object({
    id: z.string(),
    externalId: z.string(),
    meta: metaOutput.optional(),
    ratelimits: z.array(ratelimitOutput).optional(),
  })
  .meta({ id: 'Identity' });

export const keyCreditsOutput = z
  .object({
    /** null: unlimited. */
    remaining: z.number().int().nullable(),
    refill: z
      .object({
        interval: z.enum(['daily', 'monthly']),
        amount: z.number().int(),
        /** Monthly refills only. */
        refillDay: z.number().int().optional(),
      })
      .optional(),
  })
  .meta({ id: 'KeyCredits' });

export const keyResponseOutput = z
  .object({
    keyId: z.string(),
    start: z.string(),
    enabled: z.boolean(),
    name: z.string().optional(),
    meta: metaOutput.optional(),
    createdAt: z.number().int(),
    updatedAt: z.number().int().optional(),
    lastUsedAt: z.number().int().optional(),
    expires: z.number().int().optional(),
    permissions: z.array(z.string()).optional(),
    roles: z.array(z.string()).optional(),
    credits: keyCreditsOutput.optional(),
    identity: identityOutput.optional(),
    ratelimits: z.array(ratelimitOutput).optional(),
    plaintext: z.string().optional(),
  })
  .meta({ id: 'Key' });

/**
 * A key as the dashboard's table lists it (apis.listKeysPage): key data without what a key can
 * carry in bulk, so that a page is bounded by its rows (docs/contract.md#limits).
 */
export const keyRowOutput = keyResponseOutput
  .omit({ meta: true, permissions: true, roles: true, ratelimits: true, plaintext: true, identity: true })
  .extend({ identity: z.object({ id: z.string(), externalId: z.string() }).optional() });

export type IdentityData = z.infer<typeof identityOutput>;
export type KeyCreditsData = z.infer<typeof keyCreditsOutput>;
export type KeyResponseData = z.infer<typeof keyResponseOutput>;

const nonEmpty = <T>(list: T[]) => (list.length > 0 ? list : undefined);

const ratelimitsData = (limits: RatelimitConfig[]) =>
  nonEmpty(limits.map(({ durationMs, ...limit }) => ({ ...limit, duration: durationMs })));

/** An identity with its own limits; null meta and an empty list of limits are left out. */
export function identityData(identity: IdentityRecord): IdentityData {
  return {
    id: identity.id,
    externalId: identity.externalId,
    meta: identity.meta ?? undefined,
    ratelimits: ratelimitsData(identity.ratelimits),
  };
}

/** The credits as a reader sees them at `now`: a refill whose boundary passed is counted. */
export function keyCreditsData(credits: CreditsState, now: number): KeyCreditsData {
  const { refill } = credits;
  return {
    remaining: effectiveRemaining(credits, now),
    refill: refill
      ? {
          interval: refill.interval,
          amount: refill.amount,
          refillDay: refill.interval === 'monthly' ? (refill.refillDay ?? undefined) : undefined,
        }
      : undefined,
  };
}

/** A row of the keys table at `now`. */
export function keyRowData(key: KeyTableRow, now: number): z.infer<typeof keyRowOutput> {
  return {
    keyId: key.id,
    start: key.start,
    enabled: key.enabled,
    name: key.name ?? undefined,
    createdAt: key.createdAt,
    updatedAt: key.updatedAt ?? undefined,
    lastUsedAt: key.lastUsedAt ?? undefined,
    expires: key.expires ?? undefined,
    credits: key.credits.remaining === null ? undefined : keyCreditsData(key.credits, now),
    identity: key.identity ?? undefined,
  };
}

/**
 * `KeyResponseData` for a key. With the workspace's data key, a recoverable key's plaintext is
 * included; a ciphertext that does not open is left out rather than failing the whole answer.
 */
export function keyResponseData(key: KeyDetails, now: number, dataKey?: Uint8Array): KeyResponseData {
  return {
    keyId: key.id,
    start: key.start,
    enabled: key.enabled,
    name: key.name ?? undefined,
    meta: key.meta ?? undefined,
    createdAt: key.createdAt,
    updatedAt: key.updatedAt ?? undefined,
    lastUsedAt: key.lastUsedAt ?? undefined,
    expires: key.expires ?? undefined,
    permissions: nonEmpty(key.permissions),
    roles: nonEmpty(key.roles),
    credits: key.credits.remaining === null ? undefined : keyCreditsData(key.credits, now),
    identity: key.identity ? identityData(key.identity) : undefined,
    ratelimits: ratelimitsData(key.ratelimits),
    plaintext: dataKey && key.ciphertext ? openCiphertext(dataKey, key.ciphertext, key.id) : undefined,
  };
}

function openCiphertext(dataKey: Uint8Array, ciphertext: string, keyId: string): string | undefined {
  try {
    return decryptKeyMaterial(dataKey, ciphertext, keyId);
  } catch {
    return undefined;
  }
}

import { performance } from 'node:perf_hooks';
import { evict } from '@keyplane/caches';
import {
  completeKeyMigration,
  forbidden,
  hashKey,
  identityRatelimitsOf,
  VERIFICATION_CODES,
  type VerifyPorts,
  verifyKey as verify,
} from '@keyplane/core';
import { findKeyForVerification, keyMigrationStore } from '@keyplane/db';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import {
  apiPermission,
  grantedResourceIds,
  hasAnyApiGrant,
  type RootKeyPrincipal,
  requirePermissions,
} from '../../middleware/auth.ts';
import { textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';
import { identityData, identityOutput } from './keyResponse.ts';

export const verifyKeyInput = z
  .strictObject({
    key: z.string().min(1).max(512),
    tags: z.array(textSchema.min(1).max(512)).max(20).optional(),
    permissions: z.string().min(1).max(1000).optional(),
    credits: z.strictObject({ cost: z.number().int().min(0).max(1_000_000_000_000) }).optional(),
    ratelimits: z
      .array(
        z.object({
          name: z.string().min(3).max(255),
          cost: z.number().int().min(0).default(1),
          limit: z.number().int().min(0).optional(),
          duration: z.number().int().min(1000).optional(),
        }),
      )
      .max(50)
      .optional(),
    // As the reference: any string up to 256 characters, "" included (it names no migration).
    migrationId: textSchema.max(256).optional(),
  })
  .meta({
    examples: [
      { key: 'sk_1234abcdef5678' },
      {
        key: 'sk_1234abcdef5678',
        permissions: 'documents.read AND documents.write',
        credits: { cost: 2 },
        ratelimits: [{ name: 'requests', cost: 1 }],
        tags: ['path=/v1/reports'],
      },
    ],
  });

const ratelimitSchema = z.object({ id: z.string(), name: z.string(), limit: z.number(), duration: z.number() });

export const verifyKeyOutput = z
  .object({
    valid: z.boolean(),
    code: z.enum(VERIFICATION_CODES),
    keyId: z.string().optional(),
    name: z.string().optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
    expires: z.number().optional(),
    credits: z.number().optional(),
    enabled: z.boolean().optional(),
    permissions: z.array(z.string()).optional(),
    roles: z.array(z.string()).optional(),
    identity: identityOutput.optional(),
    ratelimits: z
      .array(
        ratelimitSchema.extend({
          autoApply: z.boolean(),
          exceeded: z.boolean(),
          remaining: z.number(),
          reset: z.number(),
        }),
      )
      .optional(),
  })
  .meta({
    examples: [
      { valid: true, code: 'VALID', keyId: 'key_2cGKbMxRyIzhCxo1Idjz8q', credits: 98, enabled: true },
      { valid: false, code: 'RATE_LIMITED', keyId: 'key_2cGKbMxRyIzhCxo1Idjz8q', enabled: true },
      { valid: false, code: 'NOT_FOUND' },
    ],
  });

const nonEmpty = <T>(list: T[] | undefined) => (list && list.length > 0 ? list : undefined);

/**
 * The API an unknown key was presented to, when the root key can verify on exactly one: its
 * NOT_FOUND is recorded there (with no key id). A root key of several APIs, or of all, tells none.
 */
function soleVerifiableApi(rootKey: RootKeyPrincipal): string | undefined {
  const apiIds = grantedResourceIds(rootKey, 'api', 'verify_key');
  return apiIds?.length === 1 ? apiIds[0] : undefined;
}

/** What one verification's ports need of its call: the procedure's context. */
type VerifyCall = Pick<Context, 'em' | 'services' | 'requestId'> & { rootKey: RootKeyPrincipal };

/** Verification's dependencies, built once: each call's own part comes with its context. */
const VERIFY_PORTS: VerifyPorts<VerifyCall> = {
  // Misses are cached too (as null), so a flood of garbage keys costs one query per key.
  findKey: ({ services, em }, hash) =>
    services.keyCache.lookUp(hash, async () => (await findKeyForVerification(em, hash)) ?? null),
  authorize: ({ rootKey }, apiId) => requirePermissions(rootKey, [apiPermission(apiId, 'verify_key')]),
  checkLimits: ({ services }, checks, hashTag) => services.rateLimiter.check(checks, { hashTag }),
  spendCredits: ({ services }, keyId, cost, boundary) => services.credits.spend(keyId, cost, boundary),
  // Spending nothing through the spender reads the balance in order with concurrent spends.
  readCredits: ({ services, requestId }, keyId, boundary) =>
    services.credits.spend(keyId, 0, boundary).then(
      ({ available }) => available ?? undefined,
      (error: unknown) => {
        services.reportError('could not read the credits of a key for a failed verification', error, requestId);
        return undefined;
      },
    ),
  now: ({ services }) => services.now(),
};

export const verifyKey = rootKeyProcedure
  .meta({
    public: true,
    audit: false,
    description: 'Verifies a key, spending credits and rate limits; every outcome is a 200 with `valid` and `code`.',
    errors: [412],
  })
  .input(verifyKeyInput)
  .output(verifyKeyOutput)
  .mutation(async ({ ctx, input }) => {
    const started = performance.now();
    const { services, rootKey } = ctx;
    // A root key that may verify nothing at all learns nothing, not even NOT_FOUND.
    if (!hasAnyApiGrant(rootKey, 'verify_key')) throw forbidden(['api.*.verify_key']);
    const request = {
      hash: hashKey(input.key),
      permissions: input.permissions,
      creditCost: input.credits?.cost,
      ratelimits: input.ratelimits,
    };
    let outcome = await verify(request, rootKey.workspaceId, VERIFY_PORTS, ctx);
    if (!outcome.key && input.migrationId) {
      // An imported key still carrying its old system's hash: rehash it now, then verify it as ours.
      const { migrationId } = input;
      const rehashed = await ctx.em.transactional((tx) =>
        completeKeyMigration(keyMigrationStore(tx, ctx.changeLog, ctx.services.limits), {
          workspaceId: rootKey.workspaceId,
          migrationId,
          rawKey: input.key,
        }),
      );
      if (rehashed) {
        // Its new hash may be cached here as unknown; the other nodes are settled before the answer.
        evict(services, { keyHashes: [rehashed] });
        outcome = await verify(request, rootKey.workspaceId, VERIFY_PORTS, ctx);
      }
    }
    services.outcomes.verifications.add(outcome.code);
    const { key } = outcome;
    const apiId = key ? key.apiId : soleVerifiableApi(rootKey);
    if (apiId !== undefined) {
      // Awaited: the event reaches the spool before the answer is written, so a crash cannot lose it.
      await services.verifications.record({
        time: services.now(),
        requestId: ctx.requestId,
        workspaceId: rootKey.workspaceId,
        apiId,
        keyId: key?.id ?? '',
        identityId: key?.identity?.id ?? null,
        externalId: key?.identity?.externalId ?? null,
        outcome: outcome.code,
        tags: input.tags ?? [],
        spentCredits: key ? outcome.spentCredits : 0,
        latencyMs: performance.now() - started,
      });
    }
    if (!key) return { valid: false, code: outcome.code };

    return {
      valid: outcome.code === 'VALID',
      code: outcome.code,
      keyId: key.id,
      name: key.name ?? undefined,
      meta: key.meta ?? undefined,
      expires: key.expires ?? undefined,
      credits: outcome.credits,
      enabled: key.enabled,
      permissions: nonEmpty(key.permissions),
      roles: nonEmpty(key.roles),
      identity: key.identity ? identityData({ ...key.identity, ratelimits: identityRatelimitsOf(key) }) : undefined,
      ratelimits: outcome.ratelimits,
    };
  });

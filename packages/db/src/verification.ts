import type { RatelimitConfig, VerificationKey } from '@keyplane/core';
import { type EntityManager, epochMs, rows, sql } from './sql.ts';

interface VerificationRow {
  id: string;
  workspaceId: string;
  apiId: string;
  name: string | null;
  meta: Record<string, unknown> | null;
  expires: number | null;
  enabled: boolean;
  limitedCredits: boolean;
  refillInterval: 'daily' | 'monthly' | null;
  refillAmount: number | null;
  refillDay: number | null;
  identityId: string | null;
  externalId: string | null;
  identityMeta: Record<string, unknown> | null;
  keyRatelimits: RatelimitConfig[];
  identityRatelimits: RatelimitConfig[];
  permissions: string[];
  roles: string[];
}

const ratelimitsOf = (owner: 'key_id' | 'identity_id', id: ReturnType<typeof sql.ref>) => sql<RatelimitConfig[]>`
  coalesce((select json_agg(json_build_object('id', rl.id, 'name', rl.name, 'limit', rl."limit",
    'durationMs', rl.duration_ms, 'autoApply', rl.auto_apply) order by rl.name)
  from ratelimits rl where ${sql.ref(`rl.${owner}`)} = ${id}), '[]'::json)`;

/**
 * The live key with this hash, or undefined when there is none: unknown, deleted, its API deleted
 * or not accepting keys, or its workspace deleted. A deleted identity counts as no identity.
 */
export async function findKeyForVerification(em: EntityManager, hash: string): Promise<VerificationKey | undefined> {
  const [row] = await rows(
    em,
    sql<VerificationRow>`
      select k.id, k.workspace_id as "workspaceId", k.api_id as "apiId", k.name, k.meta,
             ${epochMs('k.expires_at')} as expires, k.enabled,
             k.credits_remaining is not null as "limitedCredits", k.refill_interval as "refillInterval",
             k.refill_amount::float8 as "refillAmount", k.refill_day as "refillDay",
             i.id as "identityId", i.external_id as "externalId", i.meta as "identityMeta",
             ${ratelimitsOf('key_id', sql.ref('k.id'))} as "keyRatelimits",
             ${ratelimitsOf('identity_id', sql.ref('i.id'))} as "identityRatelimits",
             coalesce((select array_agg(distinct p.slug) from permissions p where p.id in (
                 select kp.permission_id from keys_permissions kp where kp.key_id = k.id
                 union select rp.permission_id from keys_roles kr
                   join roles_permissions rp on rp.role_id = kr.role_id where kr.key_id = k.id)),
               '{}') as permissions,
             coalesce((select array_agg(r.name order by r.name) from keys_roles kr
                 join roles r on r.id = kr.role_id where kr.key_id = k.id), '{}') as roles
      from keys k
      join apis a on a.id = k.api_id and a.deleted_at is null and a.key_auth_enabled
      join workspaces w on w.id = k.workspace_id and w.deleted_at is null
      left join identities i on i.id = k.identity_id and i.deleted_at is null
      where k.hash = ${hash} and k.deleted_at is null`,
  );
  if (!row) return undefined;
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    apiId: row.apiId,
    name: row.name,
    meta: row.meta,
    expires: row.expires,
    enabled: row.enabled,
    limitedCredits: row.limitedCredits,
    refill:
      row.refillInterval && row.refillAmount !== null
        ? { interval: row.refillInterval, amount: row.refillAmount, refillDay: row.refillDay }
        : null,
    identity:
      row.identityId && row.externalId
        ? { id: row.identityId, externalId: row.externalId, meta: row.identityMeta, ratelimits: row.identityRatelimits }
        : null,
    ratelimits: row.keyRatelimits,
    permissions: row.permissions,
    roles: row.roles,
  };
}

export interface CreditSpend {
  /** The balance the spend was judged against (after any due refill); null when the key is unlimited now. */
  available: number | null;
  /** The balance after spending; null when the spend was refused. */
  remaining: number | null;
}

/**
 * Spends `cost` credits if the key has them, in one statement under a row lock: concurrent spends
 * on any number of nodes never overdraw, and a refill whose boundary has passed since the last one
 * is applied first (so none is missed while the service was down).
 */
export async function spendCredits(
  em: EntityManager,
  keyId: string,
  cost: number,
  refillBoundary: Date,
): Promise<CreditSpend> {
  const [result] = await rows(
    em,
    sql<CreditSpend>`
      with target as (
        select id,
          refill_amount is not null and (last_refill_at is null or last_refill_at < ${refillBoundary}) as refill_due,
          case when refill_amount is not null and (last_refill_at is null or last_refill_at < ${refillBoundary})
               then greatest(credits_remaining, refill_amount) else credits_remaining end as available
        from keys where id = ${keyId} and credits_remaining is not null
        for update
      ), spent as (
        update keys k set credits_remaining = t.available - ${cost},
          last_refill_at = case when t.refill_due then ${refillBoundary} else k.last_refill_at end
        from target t where k.id = t.id and t.available >= ${cost}
        returning k.credits_remaining
      )
      select (select available from target)::float8 as available,
             (select credits_remaining from spent)::float8 as remaining`,
  );
  return result ?? { available: null, remaining: null };
}

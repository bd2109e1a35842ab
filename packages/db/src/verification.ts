import type { RatelimitConfig, VerificationKey } from '@keyplane/core';
import type pg from 'pg';
import { permissionSlugsOf, ratelimitsOf, roleNamesOf } from './keyFragments.ts';
import { type EntityManager, epochMs, sql } from './sql.ts';

// Raw: the hot path, run by every verification that misses the cache, and through the typed
// builder its value conversion cost more CPU than the rest of the lookup. And named, so each
// connection parses and plans it once: planning its subqueries was most of what a lookup cost
// PostgreSQL (docs/decisions/0017-raw-prepared-key-lookup.md).

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

/**
 * The live key with this hash, or undefined when there is none: unknown, deleted, its API deleted
 * or not accepting keys, or its workspace deleted. A deleted identity counts as no identity.
 */
export async function findKeyForVerification(em: EntityManager, hash: string): Promise<VerificationKey | undefined> {
  lookupText ??= lookupStatement(hash).compile(em.getKysely()).sql;
  const pool: pg.Pool = await em.getConnection().getNativeClient();
  const {
    rows: [row],
  } = await pool.query<VerificationRow>({ name: LOOKUP_STATEMENT, text: lookupText, values: [hash] });
  if (!row) return undefined;
  return verificationKeyOf(row);
}

const LOOKUP_STATEMENT = 'keyplane_find_key_for_verification';
/** The statement's text, `$1` the hash: compiled once, the same for every lookup. */
let lookupText: string | undefined;

function lookupStatement(hash: string) {
  return sql<VerificationRow>`
      select k.id, k.workspace_id as "workspaceId", k.api_id as "apiId", k.name, k.meta,
             ${epochMs('k.expires_at')} as expires, k.enabled,
             k.credits_remaining is not null as "limitedCredits", k.refill_interval as "refillInterval",
             k.refill_amount::float8 as "refillAmount", k.refill_day as "refillDay",
             i.id as "identityId", i.external_id as "externalId", i.meta as "identityMeta",
             ${ratelimitsOf('key_id', sql.ref('k.id'))} as "keyRatelimits",
             ${ratelimitsOf('identity_id', sql.ref('i.id'))} as "identityRatelimits",
             ${permissionSlugsOf(sql.ref('k.id'))} as permissions,
             ${roleNamesOf(sql.ref('k.id'))} as roles
      from keys k
      join apis a on a.id = k.api_id and a.deleted_at is null and a.key_auth_enabled
      join workspaces w on w.id = k.workspace_id and w.deleted_at is null
      left join identities i on i.id = k.identity_id and i.deleted_at is null
      where k.hash = ${hash} and k.deleted_at is null`;
}

function verificationKeyOf(row: VerificationRow): VerificationKey {
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

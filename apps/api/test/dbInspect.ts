import { type EntityManager, rows, sql } from '@keyplane/db';
import { RATELIMIT_DECISIONS } from '@keyplane/events';

export interface StoredKey {
  id: string;
  workspace_id: string;
  api_id: string;
  hash: string;
  start: string;
  name: string | null;
  identity_id: string | null;
  meta: Record<string, unknown> | null;
  expires_ms: number | null;
  enabled: boolean;
  credits_remaining: string | null;
  refill_interval: string | null;
  refill_amount: string | null;
  refill_day: number | null;
  ciphertext: string | null;
}

/** The key row as stored, read straight from Postgres. */
export async function storedKey(em: EntityManager, keyId: string): Promise<StoredKey | undefined> {
  const [found] = await rows(
    em,
    sql<StoredKey>`
      select id, workspace_id, api_id, hash, start, name, identity_id, meta,
             (extract(epoch from expires_at) * 1000)::float8 as expires_ms, enabled, credits_remaining::text,
             refill_interval, refill_amount::text, refill_day, ciphertext
      from keys where id = ${keyId}`,
  );
  return found;
}

export async function keyPermissionSlugs(em: EntityManager, keyId: string): Promise<string[]> {
  const found = await rows(
    em,
    sql<{ slug: string }>`
      select p.slug from keys_permissions kp join permissions p on p.id = kp.permission_id
      where kp.key_id = ${keyId} order by p.slug`,
  );
  return found.map((row) => row.slug);
}

export async function keyRoleNames(em: EntityManager, keyId: string): Promise<string[]> {
  const found = await rows(
    em,
    sql<{ name: string }>`
      select r.name from keys_roles kr join roles r on r.id = kr.role_id where kr.key_id = ${keyId} order by r.name`,
  );
  return found.map((row) => row.name);
}

export async function keyRatelimits(em: EntityManager, keyId: string) {
  return rows(
    em,
    sql<{ name: string; limit: number; duration_ms: string; auto_apply: boolean }>`
      select name, "limit", duration_ms::text, auto_apply from ratelimits where key_id = ${keyId} order by name`,
  );
}

export async function countRows(
  em: EntityManager,
  table: 'keys' | 'permissions' | 'identities' | 'ratelimits' | 'ratelimit_namespaces' | 'ratelimit_overrides',
) {
  const [found] = await rows(em, sql<{ count: number }>`select count(*)::int as count from ${sql.table(table)}`);
  return found?.count ?? 0;
}

/** Every row of every application table as text: where a leaked secret would show up. */
export async function everyStoredValue(em: EntityManager): Promise<string> {
  const tables = await rows(
    em,
    sql<{ tablename: string }>`select tablename from pg_tables where schemaname = 'public'`,
  );
  const dumps = await Promise.all(
    tables.map(async ({ tablename }) => {
      const found = await rows(
        em,
        sql<{ row: string }>`select row_to_json(t)::text as row from ${sql.table(tablename)} t`,
      );
      return found.map((entry) => entry.row).join('\n');
    }),
  );
  return dumps.join('\n');
}

export async function createRole(em: EntityManager, workspaceId: string, name: string): Promise<string> {
  const id = `role_${name.replace(/[^a-zA-Z0-9]/g, '')}${Math.random().toString(36).slice(2, 8)}`;
  await rows(
    em,
    sql`insert into roles (id, workspace_id, name, created_at) values (${id}, ${workspaceId}, ${name}, now())`,
  );
  return id;
}

/** Gives an identity a named limit (the identities procedures come later). */
export async function addIdentityRatelimit(
  em: EntityManager,
  workspaceId: string,
  identityId: string,
  limit: { name: string; limit: number; durationMs: number; autoApply: boolean },
): Promise<void> {
  await rows(
    em,
    sql`insert into ratelimits (id, workspace_id, identity_id, name, "limit", duration_ms, auto_apply, created_at)
        values (${`rl_${Math.random().toString(36).slice(2)}`}, ${workspaceId}, ${identityId}, ${limit.name},
                ${limit.limit}, ${limit.durationMs}, ${limit.autoApply}, now())`,
  );
}

/** Grants a role a permission by slug, creating the permission (the permissions procedures come later). */
export async function grantRolePermission(em: EntityManager, workspaceId: string, roleId: string, slug: string) {
  const id = `perm_${Math.random().toString(36).slice(2)}`;
  await rows(
    em,
    sql`insert into permissions (id, workspace_id, name, slug, created_at) values (${id}, ${workspaceId}, ${slug}, ${slug}, now())
        on conflict (workspace_id, slug) do nothing`,
  );
  await rows(
    em,
    sql`insert into roles_permissions (role_id, permission_id, created_at)
        select ${roleId}, id, now() from permissions where workspace_id = ${workspaceId} and slug = ${slug}`,
  );
}

export async function verificationEvents(em: EntityManager, keyId: string) {
  return rows(
    em,
    sql<{ outcome: string; tags: string[]; spent_credits: string; request_id: string }>`
      select outcome, tags, spent_credits::text, request_id from key_verifications where key_id = ${keyId} order by id`,
  );
}

/** The key's own rate limits with their ids, by name. */
export async function keyRatelimitIds(em: EntityManager, keyId: string) {
  const found = await rows(
    em,
    sql<{ id: string; name: string }>`select id, name from ratelimits where key_id = ${keyId} order by name`,
  );
  return Object.fromEntries(found.map((limit) => [limit.name, limit.id]));
}

export interface StoredIdentity {
  id: string;
  workspace_id: string;
  external_id: string;
  meta: Record<string, unknown> | null;
  deleted: boolean;
}

/** Every identity row with this externalId in the workspace, deleted ones included, oldest first. */
export async function storedIdentities(em: EntityManager, workspaceId: string, externalId: string) {
  return rows(
    em,
    sql<StoredIdentity>`
      select id, workspace_id, external_id, meta, deleted_at is not null as deleted from identities
      where workspace_id = ${workspaceId} and external_id = ${externalId} order by created_at, id`,
  );
}

/** The identity's own rate limits as stored, by name. */
export async function identityRatelimits(em: EntityManager, identityId: string) {
  return rows(
    em,
    sql<{ id: string; name: string; limit: number; duration_ms: string; auto_apply: boolean }>`
      select id, name, "limit", duration_ms::text, auto_apply from ratelimits where identity_id = ${identityId}
      order by name`,
  );
}

/** The workspace's ratelimit namespaces as stored, deleted ones included, by name. */
export async function storedNamespaces(em: EntityManager, workspaceId: string) {
  return rows(
    em,
    sql<{ id: string; name: string; deleted: boolean }>`
      select id, name, deleted_at is not null as deleted from ratelimit_namespaces
      where workspace_id = ${workspaceId} order by name`,
  );
}

/** The namespace's overrides as stored, deleted ones included, oldest first. */
export async function storedOverrides(em: EntityManager, namespaceId: string) {
  return rows(
    em,
    sql<{ id: string; identifier: string; limit: number; duration_ms: string; deleted: boolean }>`
      select id, identifier, "limit", duration_ms::text, deleted_at is not null as deleted from ratelimit_overrides
      where namespace_id = ${namespaceId} order by created_at, id`,
  );
}

/** The ratelimit decisions recorded for the namespace, in the order they were written. */
export async function ratelimitEvents(em: EntityManager, namespaceId: string) {
  return rows(
    em,
    sql<{
      request_id: string;
      workspace_id: string;
      identifier: string;
      passed: boolean;
      limit: number;
      remaining: number;
      override_id: string | null;
      latency_ms: number;
    }>`
      select request_id, workspace_id, identifier, passed, "limit", remaining, override_id, latency_ms
      from (${sql.raw(RATELIMIT_DECISIONS)}) decisions where namespace_id = ${namespaceId} order by id, decision`,
  );
}

/** The rows ratelimit_events holds for a request: one per call, whatever its decisions. */
export async function ratelimitRowCount(em: EntityManager, requestId: string): Promise<number> {
  const [found] = await rows(
    em,
    sql<{ count: number }>`select count(*)::int as count from ratelimit_events where request_id = ${requestId}`,
  );
  return found?.count ?? 0;
}

/** The workspace a permission belongs to. */
export async function permissionWorkspaceId(em: EntityManager, permissionId: string): Promise<string | undefined> {
  const [found] = await rows(
    em,
    sql<{ workspaceId: string }>`select workspace_id as "workspaceId" from permissions where id = ${permissionId}`,
  );
  return found?.workspaceId;
}

/** The id of the workspace's permission with this slug. */
export async function permissionIdOf(
  em: EntityManager,
  workspaceId: string,
  slug: string,
): Promise<string | undefined> {
  const [found] = await rows(
    em,
    sql<{ id: string }>`select id from permissions where workspace_id = ${workspaceId} and slug = ${slug}`,
  );
  return found?.id;
}

/**
 * What a key's verifications left behind: the credits they spent (from `credits`, the starting
 * balance) and the request ids of the verification events written for it.
 */
export async function spentAndRecorded(
  em: EntityManager,
  keyId: string,
  credits: number,
): Promise<{ spent: number; requestIds: string[] }> {
  const key = await storedKey(em, keyId);
  const recorded = await rows(
    em,
    sql<{ requestId: string }>`select request_id as "requestId" from key_verifications where key_id = ${keyId}`,
  );
  return { spent: credits - Number(key?.credits_remaining), requestIds: recorded.map(({ requestId }) => requestId) };
}

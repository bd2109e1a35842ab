import {
  hashKey,
  malformedKey,
  newId,
  notFound,
  PREFIXED_API_KEY_ALGORITHM,
  prefixedApiKeyParts,
  storedKeyHash,
} from '@keyplane/core';
import { findApi } from './apis.ts';
import { KeyMigration } from './entities/index.ts';
import { type Invalidation, notifyInvalidation } from './invalidation.ts';
import { ensureRoles, findPermissions } from './keyRbac.ts';
import { ensureIdentities, ensurePermissions, type KeyCredits, type KeyRatelimit } from './keys.ts';
import { type EntityManager, rows, sql } from './sql.ts';

/**
 * Registers an import of keys hashed by another system; `keys.migrateKeys` refers to it. There is
 * no public procedure for this (support creates them), so tests and operators call it directly.
 */
export async function createKeyMigration(
  em: EntityManager,
  workspaceId: string,
  algorithm = 'sha256',
): Promise<string> {
  const migration = em.create(KeyMigration, { id: newId('migration'), workspace: workspaceId, algorithm });
  await em.flush();
  return migration.id;
}

export interface MigratedKeyParams {
  /** The key's hash in the customer's system: a SHA-256 digest of the full key (hex or base64), or any other. */
  hash: string;
  name?: string;
  externalId?: string;
  meta?: Record<string, unknown>;
  roles?: string[];
  permissions?: string[];
  expiresAt?: Date;
  enabled: boolean;
  credits?: KeyCredits;
  ratelimits?: KeyRatelimit[];
}

export interface KeyMigrationResult {
  /** Hashes as the caller sent them. */
  migrated: { hash: string; keyId: string }[];
  /** Hashes that already belong to a key (anywhere: hashes are globally unique), or repeat an earlier item. */
  failed: string[];
  invalidation: Invalidation;
}

interface PlannedKey {
  id: string;
  hash: string;
  stored: string;
  params: MigratedKeyParams;
}

/**
 * Inserts keys whose hashes were computed elsewhere, in one transaction. Roles, permissions and
 * identities they name are created when missing. A hash that is already taken is reported as failed
 * rather than failing the whole import.
 */
export async function migrateKeys(
  em: EntityManager,
  workspaceId: string,
  params: { migrationId: string; apiId: string; keys: MigratedKeyParams[] },
): Promise<KeyMigrationResult> {
  return em.transactional(async (tx) => {
    const api = await findApi(tx, workspaceId, params.apiId);
    if (!api) throw notFound('api', `The API '${params.apiId}' was not found.`);
    const [migration] = await rows(
      tx,
      sql<{ id: string }>`
        select id from key_migrations where id = ${params.migrationId} and workspace_id = ${workspaceId}`,
    );
    if (!migration) throw notFound('migration', `The migration '${params.migrationId}' was not found.`);

    // One key per hash: a repeat within the request fails like a hash that is already taken.
    const planned = new Map<string, PlannedKey>();
    for (const key of params.keys) {
      const stored = storedKeyHash(key.hash);
      if (!planned.has(stored)) {
        planned.set(stored, { id: newId('key'), hash: key.hash, stored, params: key });
      }
    }
    const taken = await rows(
      tx,
      sql<{ hash: string }>`select hash from keys where hash = any(${[...planned.keys()]}::text[])`,
    );
    for (const { hash } of taken) planned.delete(hash);

    // A concurrent import may take a hash between the check and the insert: insertKeys skips it.
    const inserted = await insertKeys(tx, workspaceId, params, [...planned.values()]);
    const migrated = [...planned.values()].filter((key) => inserted.has(key.id));
    const migratedItems = new Set(migrated.map((key) => key.params));
    const failed = params.keys.filter((key) => !migratedItems.has(key)).map((key) => key.hash);

    const migratedHashes = migrated.map((key) => key.stored);
    const invalidation = { workspaceId, keyHashes: migratedHashes };
    // A node may have cached these hashes as unknown.
    if (migrated.length > 0) await notifyInvalidation(tx, invalidation);
    return { migrated: migrated.map((key) => ({ hash: key.hash, keyId: key.id })), failed, invalidation };
  });
}

/** Inserts the keys with their identities, limits, roles and permissions; returns the ids inserted. */
async function insertKeys(
  em: EntityManager,
  workspaceId: string,
  params: { migrationId: string; apiId: string },
  keys: PlannedKey[],
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  // In hash order, so that concurrent imports of overlapping keys lock them in one order.
  const ordered = [...keys].sort((a, b) => (a.stored < b.stored ? -1 : a.stored > b.stored ? 1 : 0));
  const identities = await ensureIdentities(
    em,
    workspaceId,
    keys.flatMap((key) => (key.params.externalId ? [key.params.externalId] : [])),
  );
  const rowsJson = ordered.map(({ id, stored, params: key }) => ({
    id,
    hash: stored,
    name: key.name ?? null,
    identityId: key.externalId ? (identities.get(key.externalId) ?? null) : null,
    meta: key.meta ?? null,
    expiresMs: key.expiresAt?.getTime() ?? null,
    enabled: key.enabled,
    remaining: key.credits?.remaining ?? null,
    refillInterval: key.credits?.refill?.interval ?? null,
    refillAmount: key.credits?.refill?.amount ?? null,
    refillDay: key.credits?.refill?.refillDay ?? null,
  }));
  const inserted = await rows(
    em,
    sql<{ id: string }>`
      insert into keys (id, workspace_id, api_id, hash, start, name, identity_id, meta, expires_at, enabled,
        credits_remaining, refill_interval, refill_amount, refill_day, last_refill_at, pending_migration_id, created_at)
      select t.id, ${workspaceId}, ${params.apiId}, t.hash, '', t.name, t."identityId", t.meta,
        timestamptz 'epoch' + t."expiresMs" * interval '1 millisecond', t.enabled,
        t.remaining, t."refillInterval", t."refillAmount", t."refillDay",
        case when t."refillInterval" is not null then now() end, ${params.migrationId}, now()
      from jsonb_to_recordset(${JSON.stringify(rowsJson)}::jsonb) as t(id text, hash text, name text,
        "identityId" text, meta jsonb, "expiresMs" bigint, enabled boolean, remaining bigint,
        "refillInterval" text, "refillAmount" bigint, "refillDay" smallint)
      on conflict (hash) do nothing
      returning id`,
  );
  const insertedIds = new Set(inserted.map((row) => row.id));
  const done = keys.filter((key) => insertedIds.has(key.id));

  const roleIds = await ensureRoles(
    em,
    workspaceId,
    done.flatMap((key) => key.params.roles ?? []),
  );
  const slugs = done.flatMap((key) => key.params.permissions ?? []);
  await ensurePermissions(em, workspaceId, slugs);
  const permissionIds = new Map(
    (await findPermissions(em, workspaceId, slugs)).map((permission) => [permission.slug, permission.id]),
  );
  const links = (names: string[] | undefined, ids: Map<string, string>) =>
    [...new Set(names ?? [])].flatMap((name) => {
      const id = ids.get(name);
      return id ? [id] : [];
    });
  const roleLinks = done.flatMap((key) =>
    links(key.params.roles, roleIds).map((roleId) => ({ keyId: key.id, roleId })),
  );
  const permissionLinks = done.flatMap((key) =>
    links(key.params.permissions, permissionIds).map((permissionId) => ({ keyId: key.id, permissionId })),
  );
  const limits = done.flatMap((key) =>
    (key.params.ratelimits ?? []).map((limit) => ({ id: newId('ratelimit'), keyId: key.id, ...limit })),
  );
  if (roleLinks.length > 0) {
    await rows(
      em,
      sql`
        insert into keys_roles (key_id, role_id, created_at)
        select t."keyId", t."roleId", now() from jsonb_to_recordset(${JSON.stringify(roleLinks)}::jsonb)
          as t("keyId" text, "roleId" text)`,
    );
  }
  if (permissionLinks.length > 0) {
    await rows(
      em,
      sql`
        insert into keys_permissions (key_id, permission_id, created_at)
        select t."keyId", t."permissionId", now() from jsonb_to_recordset(${JSON.stringify(permissionLinks)}::jsonb)
          as t("keyId" text, "permissionId" text)`,
    );
  }
  if (limits.length > 0) {
    await rows(
      em,
      sql`
        insert into ratelimits (id, workspace_id, key_id, name, "limit", duration_ms, auto_apply, created_at)
        select t.id, ${workspaceId}, t."keyId", t.name, t."limit", t."durationMs", t."autoApply", now()
        from jsonb_to_recordset(${JSON.stringify(limits)}::jsonb)
          as t(id text, "keyId" text, name text, "limit" int, "durationMs" bigint, "autoApply" boolean)`,
    );
  }
  return insertedIds;
}

/**
 * On-demand rehash of an imported key whose old system hashed only part of it: when the raw key
 * matches a key still pending in this migration, its hash becomes ours (SHA-256 of the full key)
 * and the migration is done for it. Returns what changed, or undefined when nothing matched. A
 * key of the wrong shape for the migration's algorithm is a 400 `authentication/malformed`.
 */
export async function completeKeyMigration(
  em: EntityManager,
  workspaceId: string,
  migrationId: string,
  rawKey: string,
): Promise<Invalidation | undefined> {
  return em.transactional(async (tx) => {
    const [migration] = await rows(
      tx,
      sql<{
        algorithm: string;
      }>`select algorithm from key_migrations where id = ${migrationId} and workspace_id = ${workspaceId}`,
    );
    if (migration?.algorithm !== PREFIXED_API_KEY_ALGORITHM) return undefined;
    const parts = prefixedApiKeyParts(rawKey);
    if (!parts) {
      throw malformedKey('Invalid key format: keys of this migration have the form prefix_shortToken_longToken.', [
        { location: 'body.key', message: 'expected prefix_shortToken_longToken' },
      ]);
    }
    const newHash = hashKey(rawKey);
    const [migrated] = await rows(
      tx,
      sql<{ id: string }>`
        update keys set hash = ${newHash}, start = ${parts.start}, pending_migration_id = null, updated_at = now()
        where hash = ${parts.importedHash} and pending_migration_id = ${migrationId} and workspace_id = ${workspaceId}
        returning id`,
    );
    if (!migrated) return undefined;
    const change = { workspaceId, keyHashes: [newHash] };
    await notifyInvalidation(tx, change);
    return change;
  });
}

import type { ChangeLog } from '@keyplane/caches';
import { type ImportedKey, type KeyMigrationStore, newId, type WorkspaceLimits } from '@keyplane/core';
import { findApi } from './apis.ts';
import { KeyMigration } from './entities/index.ts';
import { ensureRoles, findPermissions } from './keyRbac.ts';
import { ensureIdentities, ensurePermissions } from './keys.ts';
import { requireKeyRolesWithinLimit } from './limits.ts';
import { type EntityManager, rows, sql, typed } from './sql.ts';

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

/**
 * What core's migrateKeys and completeKeyMigration read and write, on the transaction `tx`; changes
 * are announced on `changeLog`. Missing roles and permissions are created within the workspace's `workspaceLimits`.
 */
export function keyMigrationStore(
  tx: EntityManager,
  changeLog: ChangeLog,
  workspaceLimits: WorkspaceLimits,
): KeyMigrationStore {
  return {
    findApi: (workspaceId, apiId) => findApi(tx, workspaceId, apiId),
    findMigration: (workspaceId, migrationId) =>
      typed(tx)
        .selectFrom('key_migrations')
        .select('algorithm')
        .where('id', '=', migrationId)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst(),
    async takenHashes(storedHashes) {
      const taken = await typed(tx)
        .selectFrom('keys')
        .select('hash')
        .where((eb) => eb('hash', '=', eb.fn.any(eb.val(storedHashes))))
        .execute();
      return taken.map((key) => key.hash);
    },
    insertImportedKeys: (workspaceId, target, keys) =>
      insertImportedKeys(tx, changeLog, workspaceLimits, { workspaceId, ...target }, keys),
    rehashKey: (workspaceId, migrationId, rehash) => rehashKey(tx, changeLog, workspaceId, migrationId, rehash),
  };
}

/**
 * Inserts the keys with their identities, limits, roles and permissions; returns the ids inserted.
 * Raw: each statement writes any number of rows from one jsonb parameter (an import has no
 * maximum size, and a statement at most 65535 parameters).
 */
async function insertImportedKeys(
  tx: EntityManager,
  changeLog: ChangeLog,
  workspaceLimits: WorkspaceLimits,
  target: { workspaceId: string; apiId: string; migrationId: string },
  keys: ImportedKey[],
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { workspaceId } = target;
  // In hash order, so that concurrent imports of overlapping keys lock them in one order.
  const ordered = [...keys].sort((a, b) => (a.storedHash < b.storedHash ? -1 : a.storedHash > b.storedHash ? 1 : 0));
  const identities = await ensureIdentities(
    tx,
    workspaceId,
    keys.flatMap(({ key }) => (key.externalId ? [key.externalId] : [])),
  );
  const rowsJson = ordered.map(({ id, storedHash, key }) => ({
    id,
    hash: storedHash,
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
    tx,
    sql<{ id: string }>`
      insert into keys (id, workspace_id, api_id, hash, start, name, identity_id, meta, expires_at, enabled,
        credits_remaining, refill_interval, refill_amount, refill_day, last_refill_at, pending_migration_id, created_at)
      select t.id, ${workspaceId}, ${target.apiId}, t.hash, '', t.name, t."identityId", t.meta,
        timestamptz 'epoch' + t."expiresMs" * interval '1 millisecond', t.enabled,
        t.remaining, t."refillInterval", t."refillAmount", t."refillDay",
        case when t."refillInterval" is not null then now() end, ${target.migrationId}, now()
      from jsonb_to_recordset(${JSON.stringify(rowsJson)}::jsonb) as t(id text, hash text, name text,
        "identityId" text, meta jsonb, "expiresMs" bigint, enabled boolean, remaining bigint,
        "refillInterval" text, "refillAmount" bigint, "refillDay" smallint)
      on conflict (hash) do nothing
      returning id`,
  );
  const insertedIds = new Set(inserted.map((row) => row.id));
  const done = keys.filter((key) => insertedIds.has(key.id));

  const roleIds = await ensureRoles(
    tx,
    workspaceId,
    done.flatMap(({ key }) => key.roles ?? []),
    workspaceLimits.roles,
  );
  const slugs = done.flatMap(({ key }) => key.permissions ?? []);
  await ensurePermissions(tx, workspaceId, slugs, workspaceLimits.permissions);
  const permissionIds = new Map(
    (await findPermissions(tx, workspaceId, slugs)).map((permission) => [permission.slug, permission.id]),
  );
  const links = (names: string[] | undefined, ids: Map<string, string>) =>
    [...new Set(names ?? [])].flatMap((name) => {
      const id = ids.get(name);
      return id ? [id] : [];
    });
  const roleLinks = done.flatMap(({ id, key }) => links(key.roles, roleIds).map((roleId) => ({ keyId: id, roleId })));
  const permissionLinks = done.flatMap(({ id, key }) =>
    links(key.permissions, permissionIds).map((permissionId) => ({ keyId: id, permissionId })),
  );
  const limits = done.flatMap(({ id, key }) =>
    (key.ratelimits ?? []).map((limit) => ({ id: newId('ratelimit'), keyId: id, ...limit })),
  );
  if (roleLinks.length > 0) {
    await rows(
      tx,
      sql`
        insert into keys_roles (key_id, role_id, created_at)
        select t."keyId", t."roleId", now() from jsonb_to_recordset(${JSON.stringify(roleLinks)}::jsonb)
          as t("keyId" text, "roleId" text)`,
    );
    await requireKeyRolesWithinLimit(tx, [...new Set(roleLinks.map((link) => link.keyId))]);
  }
  if (permissionLinks.length > 0) {
    await rows(
      tx,
      sql`
        insert into keys_permissions (key_id, permission_id, created_at)
        select t."keyId", t."permissionId", now() from jsonb_to_recordset(${JSON.stringify(permissionLinks)}::jsonb)
          as t("keyId" text, "permissionId" text)`,
    );
  }
  if (limits.length > 0) {
    await rows(
      tx,
      sql`
        insert into ratelimits (id, workspace_id, key_id, name, "limit", duration_ms, auto_apply, created_at)
        select t.id, ${workspaceId}, t."keyId", t.name, t."limit", t."durationMs", t."autoApply", now()
        from jsonb_to_recordset(${JSON.stringify(limits)}::jsonb)
          as t(id text, "keyId" text, name text, "limit" int, "durationMs" bigint, "autoApply" boolean)`,
    );
  }
  // A node may have cached these hashes as unknown.
  if (done.length > 0) {
    await changeLog.announce(tx, { workspaceId, keyHashes: done.map((imported) => imported.storedHash) });
  }
  return insertedIds;
}

/** Gives the key pending in the migration under the imported hash our hash and start. */
async function rehashKey(
  tx: EntityManager,
  changeLog: ChangeLog,
  workspaceId: string,
  migrationId: string,
  rehash: { importedHash: string; hash: string; start: string },
): Promise<boolean> {
  const rehashed = await typed(tx)
    .updateTable('keys')
    .set({ hash: rehash.hash, start: rehash.start, pending_migration_id: null, updated_at: new Date() })
    .where('hash', '=', rehash.importedHash)
    .where('pending_migration_id', '=', migrationId)
    .where('workspace_id', '=', workspaceId)
    .returning('id')
    .executeTakeFirst();
  if (!rehashed) return false;
  await changeLog.announce(tx, { workspaceId, keyHashes: [rehash.hash] });
  return true;
}

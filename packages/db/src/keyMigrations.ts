import type { ChangeLog } from '@keyplane/caches';
import { type ImportedKey, type KeyMigrationStore, newId, type WorkspaceLimits } from '@keyplane/core';
import { findApi } from './apis.ts';
import { KeyMigration } from './entities/index.ts';
import { ensureRoles, findPermissions } from './keyRbac.ts';
import { ensureIdentities, ensurePermissions } from './keys.ts';
import { requireKeyRolesWithinLimit } from './limits.ts';
import { type EntityManager, sql, typed, unnestAs } from './sql.ts';

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
 * Each statement writes any number of rows from one array parameter per column (unnestAs): an
 * import has no maximum size, and a statement at most 65535 parameters.
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
  const column = <T>(value: (imported: ImportedKey) => T) => ordered.map(value);
  const inserted = await typed(tx)
    .insertInto('keys')
    .columns([
      'id',
      'workspace_id',
      'api_id',
      'hash',
      'start',
      'name',
      'identity_id',
      'meta',
      'expires_at',
      'enabled',
      'credits_remaining',
      'refill_interval',
      'refill_amount',
      'refill_day',
      'last_refill_at',
      'pending_migration_id',
      'created_at',
    ])
    .expression((eb) =>
      eb
        .selectFrom(
          unnestAs('t', {
            id: ['text', column(({ id }) => id)],
            hash: ['text', column(({ storedHash }) => storedHash)],
            name: ['text', column(({ key }) => key.name ?? null)],
            identity_id: [
              'text',
              column(({ key }) => (key.externalId ? (identities.get(key.externalId) ?? null) : null)),
            ],
            meta: ['text', column(({ key }) => (key.meta == null ? null : JSON.stringify(key.meta)))],
            expires_ms: ['int8', column(({ key }) => key.expiresAt?.getTime() ?? null)],
            enabled: ['bool', column(({ key }) => key.enabled)],
            remaining: ['int8', column(({ key }) => key.credits?.remaining ?? null)],
            refill_interval: ['text', column(({ key }) => key.credits?.refill?.interval ?? null)],
            refill_amount: ['int8', column(({ key }) => key.credits?.refill?.amount ?? null)],
            refill_day: ['int8', column(({ key }) => key.credits?.refill?.refillDay ?? null)],
          }),
        )
        .select([
          't.id',
          eb.val(workspaceId).as('workspace_id'),
          eb.val(target.apiId).as('api_id'),
          't.hash',
          sql.lit('').as('start'),
          't.name',
          't.identity_id',
          sql`t.meta::jsonb`.as('meta'),
          sql`timestamptz 'epoch' + t.expires_ms * interval '1 millisecond'`.as('expires_at'),
          't.enabled',
          't.remaining',
          't.refill_interval',
          't.refill_amount',
          't.refill_day',
          sql`case when t.refill_interval is not null then now() end`.as('last_refill_at'),
          eb.val(target.migrationId).as('pending_migration_id'),
          sql`now()`.as('created_at'),
        ]),
    )
    .onConflict((oc) => oc.column('hash').doNothing())
    .returning('id')
    .execute();
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
  const db = typed(tx);
  if (roleLinks.length > 0) {
    await db
      .insertInto('keys_roles')
      .columns(['key_id', 'role_id', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom(
            unnestAs('t', {
              key_id: ['text', roleLinks.map((link) => link.keyId)],
              role_id: ['text', roleLinks.map((link) => link.roleId)],
            }),
          )
          .select(['t.key_id', 't.role_id', sql<Date>`now()`.as('created_at')]),
      )
      .execute();
    await requireKeyRolesWithinLimit(tx, [...new Set(roleLinks.map((link) => link.keyId))]);
  }
  if (permissionLinks.length > 0) {
    await db
      .insertInto('keys_permissions')
      .columns(['key_id', 'permission_id', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom(
            unnestAs('t', {
              key_id: ['text', permissionLinks.map((link) => link.keyId)],
              permission_id: ['text', permissionLinks.map((link) => link.permissionId)],
            }),
          )
          .select(['t.key_id', 't.permission_id', sql<Date>`now()`.as('created_at')]),
      )
      .execute();
  }
  if (limits.length > 0) {
    await db
      .insertInto('ratelimits')
      .columns(['id', 'workspace_id', 'key_id', 'name', 'limit', 'duration_ms', 'auto_apply', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom(
            unnestAs('t', {
              id: ['text', limits.map((limit) => limit.id)],
              key_id: ['text', limits.map((limit) => limit.keyId)],
              name: ['text', limits.map((limit) => limit.name)],
              limit: ['int8', limits.map((limit) => limit.limit)],
              duration_ms: ['int8', limits.map((limit) => limit.durationMs)],
              auto_apply: ['bool', limits.map((limit) => limit.autoApply ?? null)],
            }),
          )
          .select([
            't.id',
            eb.val(workspaceId).as('workspace_id'),
            't.key_id',
            't.name',
            't.limit',
            't.duration_ms',
            't.auto_apply',
            sql<Date>`now()`.as('created_at'),
          ]),
      )
      .execute();
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

import { type EntityManager, rows, sql } from '@keyplane/db';

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

export async function countRows(em: EntityManager, table: 'keys' | 'permissions' | 'identities' | 'ratelimits') {
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

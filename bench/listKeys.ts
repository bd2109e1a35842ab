// apis.listKeys: walks every page of an API with 10,000 keys (and one with 1,000, for comparison)
// through /v2 on a spawned server, to show that the cost of a page does not grow with the number
// of keys, nor with how many permissions and roles one key holds.
//   DATABASE_URL=postgresql://… npm run bench:list
// Without DATABASE_URL an embedded PostgreSQL is started in a temporary directory.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createDatabase } from './database.ts';
import { spawnServer } from './server.ts';

const PAGE_SIZE = 100;
/** The heavy key: this many direct permissions, and this many roles of ROLE_SIZE permissions each. */
const HEAVY_PERMISSIONS = 500;
const HEAVY_ROLES = 50;
const ROLE_SIZE = 10;

interface Page {
  data: { keyId: string }[];
  pagination: { cursor?: string; hasMore: boolean };
}

async function listKeys(url: string, rootKey: string, body: Record<string, unknown>): Promise<Page> {
  const response = await fetch(`${url}/v2/apis.listKeys`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json()) as Page & { error?: unknown };
  if (!response.ok) throw new Error(`apis.listKeys: ${JSON.stringify(parsed.error)}`);
  return parsed;
}

async function createApi(url: string, rootKey: string, name: string): Promise<string> {
  const response = await fetch(`${url}/v2/apis.createApi`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify({ name }),
  });
  const parsed = (await response.json()) as { data: { apiId: string } };
  return parsed.data.apiId;
}

/**
 * `count` keys straight in SQL, in id order of creation: every key has two direct permissions and
 * one role, every second one credits, every fifth a rate limit, every tenth an identity with its
 * own rate limit. The key numbered `heavy`, when given, also holds the heavy grants.
 */
async function seed(db: pg.Client, workspaceId: string, apiId: string, count: number, heavy?: number) {
  const tag = apiId.slice(-8);
  await db.query(
    `insert into identities (id, workspace_id, external_id, created_at)
     select 'id_' || $3 || lpad(n::text, 6, '0'), $1, 'user_' || $3 || n, now() from generate_series(1, $2::int / 10) n`,
    [workspaceId, count, tag],
  );
  await db.query(
    `insert into ratelimits (id, workspace_id, identity_id, name, "limit", duration_ms, auto_apply, created_at)
     select 'rl_i' || i.id, $1, i.id, 'shared', 100, 60000, false, now() from identities i where i.id like 'id_' || $2 || '%'`,
    [workspaceId, tag],
  );
  await db.query(
    `insert into keys (id, workspace_id, api_id, hash, start, name, meta, identity_id, enabled,
                       credits_remaining, refill_interval, refill_amount, created_at)
     select 'key_' || $3 || lpad(n::text, 6, '0'), $1, $2, encode(sha256(convert_to($3 || n::text, 'UTF8')), 'hex'),
            'bn_' || left(md5(n::text), 4), 'key ' || n, jsonb_build_object('n', n),
            case when n % 10 = 0 then 'id_' || $3 || lpad((n / 10)::text, 6, '0') end, n % 7 <> 0,
            case when n % 2 = 0 then 1000 end, case when n % 4 = 0 then 'daily' end, case when n % 4 = 0 then 1000 end,
            now()
     from generate_series(1, $4::int) n`,
    [workspaceId, apiId, tag, count],
  );
  await db.query(
    `insert into ratelimits (id, workspace_id, key_id, name, "limit", duration_ms, auto_apply, created_at)
     select 'rl_k' || k.id, $1, k.id, 'requests', 10, 1000, true, now()
     from keys k where k.api_id = $2 and right(k.id, 1) in ('0', '5')`,
    [workspaceId, apiId],
  );
  await db.query(
    `insert into keys_permissions (key_id, permission_id, created_at)
     select k.id, p.id, now() from keys k
     join permissions p on p.workspace_id = $1 and p.slug in ('documents.read', 'documents.write')
     where k.api_id = $2`,
    [workspaceId, apiId],
  );
  await db.query(
    `insert into keys_roles (key_id, role_id, created_at)
     select k.id, r.id, now() from keys k join roles r on r.workspace_id = $1 and r.name = 'role_1' where k.api_id = $2`,
    [workspaceId, apiId],
  );
  if (heavy === undefined) return;
  const heavyKey = `key_${tag}${String(heavy).padStart(6, '0')}`;
  await db.query(
    `insert into keys_permissions (key_id, permission_id, created_at)
     select $1, p.id, now() from permissions p where p.workspace_id = $2 and p.slug like 'perm.%'
     on conflict do nothing`,
    [heavyKey, workspaceId],
  );
  await db.query(
    `insert into keys_roles (key_id, role_id, created_at)
     select $1, r.id, now() from roles r where r.workspace_id = $2 on conflict do nothing`,
    [heavyKey, workspaceId],
  );
}

/** The workspace's permissions and roles: `documents.*`, the heavy key's slugs, and roles over them. */
async function seedRbac(db: pg.Client, workspaceId: string) {
  await db.query(
    `insert into permissions (id, workspace_id, name, slug, created_at)
     select 'perm_' || s, $1, s, s, now()
     from (select unnest(array['documents.read', 'documents.write']) s
           union all select 'perm.' || n from generate_series(1, $2::int) n) slugs`,
    [workspaceId, HEAVY_PERMISSIONS],
  );
  await db.query(
    `insert into roles (id, workspace_id, name, created_at)
     select 'role_' || n, $1, 'role_' || n, now() from generate_series(1, $2::int) n`,
    [workspaceId, HEAVY_ROLES],
  );
  await db.query(
    `insert into roles_permissions (role_id, permission_id, created_at)
     select 'role_' || r, 'perm_perm.' || ((r - 1) * $1 + p), now()
     from generate_series(1, $2::int) r, generate_series(1, $1::int) p`,
    [ROLE_SIZE, HEAVY_ROLES],
  );
}

interface Walk {
  pages: number;
  keys: number;
  totalMs: number;
  pageMs: number[];
  /** Time of the page holding the heavy key, if any. */
  heavyPageMs?: number;
}

async function walk(url: string, rootKey: string, apiId: string, heavyKeyId?: string): Promise<Walk> {
  const pageMs: number[] = [];
  const seen = new Set<string>();
  let heavyPageMs: number | undefined;
  let cursor: string | undefined;
  const started = performance.now();
  do {
    const before = performance.now();
    const page = await listKeys(url, rootKey, { apiId, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) });
    const took = performance.now() - before;
    pageMs.push(took);
    for (const key of page.data) {
      if (seen.has(key.keyId)) throw new Error(`key ${key.keyId} listed twice`);
      seen.add(key.keyId);
      if (key.keyId === heavyKeyId) heavyPageMs = took;
    }
    cursor = page.pagination.cursor;
  } while (cursor);
  return { pages: pageMs.length, keys: seen.size, totalMs: performance.now() - started, pageMs, heavyPageMs };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

/**
 * Transactions committed in the database so far: each autocommit statement of the server counts
 * one, so the difference over a walk counts its statements (pg_stat_statements is not assumed).
 */
async function commits(db: pg.Client): Promise<number> {
  // An idle backend publishes its counters only after 10 s (PGSTAT_IDLE_INTERVAL).
  await sleep(11_000);
  const result = await db.query<{ n: string }>(
    'select xact_commit::text as n from pg_stat_database where datname = current_database()',
  );
  return Number(result.rows[0]?.n ?? 0);
}

const database = await createDatabase();
const server = await spawnServer({ DATABASE_URL: database.url });
const db = new pg.Client({ connectionString: database.url });
await db.connect();
try {
  const rootKey = server.rootKey;
  if (!rootKey) throw new Error('the server did not print a bootstrap root key');
  const largeApi = await createApi(server.url, rootKey, 'bench-10k');
  const smallApi = await createApi(server.url, rootKey, 'bench-1k');
  const workspace = await db.query<{ workspace_id: string }>('select workspace_id from apis where id = $1', [largeApi]);
  const workspaceId = workspace.rows[0]?.workspace_id;
  if (!workspaceId) throw new Error('no workspace for the API');

  const seedStarted = performance.now();
  await seedRbac(db, workspaceId);
  await seed(db, workspaceId, largeApi, 10_000, 5_050);
  await seed(db, workspaceId, smallApi, 1_000);
  // Settle the tables now, so that autovacuum neither competes with the walks nor adds to the
  // commit count below (this database is thrown away afterwards).
  await db.query('vacuum analyze');
  await db.query(`
    do $$ declare t text; begin
      for t in select tablename from pg_tables where schemaname = 'public' loop
        execute format('alter table %I set (autovacuum_enabled = false)', t);
      end loop;
    end $$`);
  const heavyKeyId = `key_${largeApi.slice(-8)}005050`;
  console.log(`seeded 11,000 keys in ${(performance.now() - seedStarted).toFixed(0)} ms`);

  // Warm-up: the server's connection pool, the root key cache, Postgres' plan cache.
  await walk(server.url, rootKey, smallApi);

  const results: [string, Walk, number][] = [];
  let committed = await commits(db);
  for (const [name, apiId, heavy] of [
    ['1,000 keys', smallApi, undefined],
    ['10,000 keys', largeApi, heavyKeyId],
  ] as const) {
    const result = await walk(server.url, rootKey, apiId, heavy);
    const before = committed;
    committed = await commits(db);
    // Less our own statistics query.
    results.push([name, result, (committed - before - 1) / result.pages]);
  }

  console.log(`\npage size ${PAGE_SIZE}; heavy key: ${HEAVY_PERMISSIONS} permissions + ${HEAVY_ROLES} roles\n`);
  console.log(
    'walk'.padEnd(13),
    'pages'.padStart(6),
    'keys'.padStart(7),
    'total ms'.padStart(9),
    'ms/page'.padStart(8),
    'p50'.padStart(6),
    'p99'.padStart(6),
    'max'.padStart(6),
    'first 10'.padStart(9),
    'last 10'.padStart(8),
    'heavy pg'.padStart(9),
    'stmts/page'.padStart(11),
  );
  for (const [name, result, statementsPerPage] of results) {
    console.log(
      name.padEnd(13),
      String(result.pages).padStart(6),
      String(result.keys).padStart(7),
      result.totalMs.toFixed(0).padStart(9),
      mean(result.pageMs).toFixed(2).padStart(8),
      percentile(result.pageMs, 50).toFixed(2).padStart(6),
      percentile(result.pageMs, 99).toFixed(2).padStart(6),
      Math.max(...result.pageMs)
        .toFixed(2)
        .padStart(6),
      mean(result.pageMs.slice(0, 10)).toFixed(2).padStart(9),
      mean(result.pageMs.slice(-10)).toFixed(2).padStart(8),
      (result.heavyPageMs === undefined ? '-' : result.heavyPageMs.toFixed(2)).padStart(9),
      statementsPerPage.toFixed(1).padStart(11),
    );
  }
} finally {
  await db.end();
  await server.stop();
  await database.drop();
}

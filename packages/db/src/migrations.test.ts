import { createChangeLog } from '@keyplane/caches';
import { bootstrapWorkspace, createKey, DEFAULT_WORKSPACE_LIMITS, MAX_CREDITS } from '@keyplane/core';
import { createEmptyDatabase } from '@keyplane/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApi } from './apis.ts';
import { findKeyDetails } from './keyDetails.ts';
import { keyCreationStore } from './keys.ts';
import { createOrm, migrate, pendingMigrations } from './orm.ts';
import { rows, sql } from './sql.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';
import { workspaceStore } from './workspaces.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

describe('the committed migrations', () => {
  it('build exactly the schema the entities describe (a change to either alone fails here)', async () => {
    // The test database is a clone of one migrated by every committed migration.
    const diff = await database.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });
});

describe('migrate', () => {
  it('run by three processes at once on an empty database, migrates it once and lets all three go on', async () => {
    const empty = await createEmptyDatabase(inject('databaseUrl'));
    const orms = await Promise.all([1, 2, 3].map(() => createOrm(empty.url, { poolSize: 2 })));
    try {
      await Promise.all(orms.map((orm) => migrate(orm)));
      for (const orm of orms) expect(await pendingMigrations(orm)).toEqual([]);
      const diff = await orms[0]?.schema.getUpdateSchemaSQL({ wrap: false });
      expect(diff?.trim()).toBe('');
    } finally {
      await Promise.all(orms.map((orm) => orm.close()));
      await empty.drop();
    }
  });
});

describe('Migration20261124170000_clamp_oversized_credits', () => {
  const migration = 'Migration20261124170000_clamp_oversized_credits';

  it('brings balances past 2^53-1 back to it, so those keys can be read again, and leaves the rest', async () => {
    const em = database.orm.em.fork();
    const { workspaceId } = await em.transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'clamp' }));
    const apiId = await createApi(em, workspaceId, 'clamp');
    const keyWith = async (remaining: number | null) =>
      (
        await em.transactional((tx) =>
          createKey(keyCreationStore(tx, createChangeLog(), DEFAULT_WORKSPACE_LIMITS), {
            workspaceId,
            apiId,
            credits: { remaining },
            enabled: true,
            recoverable: false,
          }),
        )
      ).keyId;
    const oversized = await keyWith(1);
    const [largest, small, unlimited] = [await keyWith(MAX_CREDITS), await keyWith(5), await keyWith(null)];
    // As the old increment left it (the column takes any bigint).
    await rows(em, sql`update keys set credits_remaining = 9007199254740991::bigint * 3 where id = ${oversized}`);
    const remainingOf = async (keyId: string) =>
      (await findKeyDetails(em.fork(), workspaceId, { keyId }))?.credits.remaining;
    // Not a number any response may carry (and one a spend of 1 cannot change).
    expect(Number.isSafeInteger(await remainingOf(oversized))).toBe(false);

    await database.orm.migrator.down({ migrations: [migration] });
    await database.orm.migrator.up({ migrations: [migration] });

    const stored = await rows(
      em.fork(),
      sql<{ id: string; remaining: string | null }>`select id, credits_remaining::text as remaining from keys
                                                     where workspace_id = ${workspaceId}`,
    );
    expect(Object.fromEntries(stored.map(({ id, remaining }) => [id, remaining]))).toEqual({
      [oversized]: String(MAX_CREDITS),
      [largest]: String(MAX_CREDITS),
      [small]: '5',
      [unlimited]: null,
    });
    expect(await remainingOf(oversized)).toBe(MAX_CREDITS);
  });
});

describe('Migration20261127125252_event_rows_without_namespace_index', () => {
  const migration = 'Migration20261127125252_event_rows_without_namespace_index';
  const indexesOfDecisions = async () =>
    (
      await rows(
        database.orm.em.fork(),
        sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'ratelimit_events' order by 1`,
      )
    ).map(({ name }) => name);

  it("drops the decisions' (namespace, time) index, and down makes it again", async () => {
    await database.orm.migrator.down({ migrations: [migration] });
    expect(await indexesOfDecisions()).toContain('ratelimit_events_namespace_id_time_index');
    await database.orm.migrator.up({ migrations: [migration] });
    expect(await indexesOfDecisions()).toEqual([
      'ratelimit_events_pkey',
      'ratelimit_events_time_index',
      'ratelimit_events_workspace_id_time_index',
    ]);
  });
});

describe('Migration20261127175620_ratelimit_calls_one_row', () => {
  const migration = 'Migration20261127175620_ratelimit_calls_one_row';
  // Its `further` column is read by the analytics views, made by a later migration: down goes through both.
  const later = 'Migration20261128120000_analytics_views';

  it("keeps a call's further decisions on the way down, as rows of their own", async () => {
    const em = database.orm.em.fork();
    const further = [
      { namespaceId: 'rlns_down_b', identifier: 'user\t2', limit: 20, remaining: 19, overrideId: 'rlor_down' },
      { namespaceId: 'rlns_down_c', identifier: 'user_3', limit: 30, remaining: 29, overrideId: null },
    ];
    await rows(
      em,
      sql`insert into ratelimit_events (time, request_id, workspace_id, namespace_id, identifier, passed, "limit",
                                        remaining, override_id, latency_ms, further)
          values (now(), 'req_down', 'ws_down', 'rlns_down_a', 'user_1', true, 10, 9, null, 1.5, ${JSON.stringify(further)})`,
    );

    await database.orm.migrator.down({ migrations: [later] });
    await database.orm.migrator.down({ migrations: [migration] });
    try {
      const decisions = await rows(
        em.fork(),
        sql<{ namespace_id: string; identifier: string; limit: number; remaining: number; override_id: string | null }>`
          select namespace_id, identifier, "limit", remaining, override_id from ratelimit_events
          where request_id = 'req_down' order by namespace_id`,
      );
      expect(decisions).toEqual([
        { namespace_id: 'rlns_down_a', identifier: 'user_1', limit: 10, remaining: 9, override_id: null },
        { namespace_id: 'rlns_down_b', identifier: 'user\t2', limit: 20, remaining: 19, override_id: 'rlor_down' },
        { namespace_id: 'rlns_down_c', identifier: 'user_3', limit: 30, remaining: 29, override_id: null },
      ]);
    } finally {
      await database.orm.migrator.up({ migrations: [migration] });
      await database.orm.migrator.up({ migrations: [later] });
    }
  });
});

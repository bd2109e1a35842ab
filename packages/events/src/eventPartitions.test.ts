import { refusedData, rows, sql } from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEventPartitions, eventPartitions } from './eventPartitions.ts';
import { eventTransaction } from './eventTransaction.ts';
import { type RatelimitEvent, ratelimitTable } from './ratelimitEvents.ts';
import { deleteExpiredAnalytics } from './retention.ts';
import { testVerificationEvent, writeEvents } from './testing.ts';
import { type VerificationEvent, verificationTable } from './verificationEvents.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

function verification(keyId: string, time: number, fields: Partial<VerificationEvent> = {}): VerificationEvent {
  return testVerificationEvent({
    requestId: `req_${keyId}_${time}`,
    workspaceId: 'ws_parts',
    apiId: 'api_parts',
    keyId,
    time,
    ...fields,
  });
}

function decision(identifier: string, time: number): RatelimitEvent {
  return {
    time,
    requestId: `req_${identifier}_${time}`,
    workspaceId: 'ws_parts',
    namespaceId: 'rlns_parts',
    identifier,
    passed: true,
    limit: 10,
    remaining: 9,
    overrideId: null,
    latencyMs: 1,
  };
}

/** Where each event of a key (verifications) or identifier (decisions) is stored: its partition, by time. */
async function partitionsOf(table: 'key_verifications' | 'ratelimit_events', column: string, value: string) {
  const found = await rows(
    database.orm.em.fork(),
    sql<{ ms: string; partition: string }>`
      select floor(extract(epoch from time) * 1000)::int8::text as ms, tableoid::regclass::text as partition
      from ${sql.table(table)} where ${sql.ref(column)} = ${value} order by time`,
  );
  return found.map(({ ms, partition }) => [Number(ms), partition]);
}

async function childrenOf(table: string): Promise<string[]> {
  const found = await rows(
    database.orm.em.fork(),
    sql<{ name: string }>`select inhrelid::regclass::text as name from pg_inherits
                          where inhparent = ${table}::regclass order by 1`,
  );
  return found.map(({ name }) => name);
}

describe('Migration20261125030000_partition_event_tables', () => {
  const migration = 'Migration20261125030000_partition_event_tables';

  it('moves the rows of the unpartitioned tables into a partition of their day, ids and all', async () => {
    // Every later migration goes down first, as a later one may change these tables again.
    await database.orm.migrator.down({ to: 'Migration20261124212806_event_spool_marks' });
    const em = database.orm.em.fork();
    expect(await rows(em, sql`select 1 from pg_partitioned_table`)).toEqual([]);
    const old = Date.UTC(2024, 2, 10, 23, 59, 59, 999);
    await rows(
      em,
      sql`insert into key_verifications (time, request_id, workspace_id, api_id, key_id, outcome, tags, latency_ms)
          values (to_timestamp(${old} / 1000.0), 'req_m1', 'ws_parts', 'api_parts', 'key_migrated', 'VALID', '{a}', 1),
                 (to_timestamp(${old + 1} / 1000.0), 'req_m2', 'ws_parts', 'api_parts', 'key_migrated', 'VALID', '{}', 2)`,
    );
    await rows(
      em,
      sql`insert into ratelimit_events (time, request_id, workspace_id, namespace_id, identifier, passed, "limit",
                                        remaining, latency_ms)
          values (to_timestamp(${old} / 1000.0), 'req_m3', 'ws_parts', 'rlns_parts', 'user_migrated', true, 5, 4, 1)`,
    );
    const idsBefore = await rows(
      em,
      sql<{ id: string }>`select id::text from key_verifications where key_id = 'key_migrated' order by id`,
    );

    await database.orm.migrator.up({ migrations: [migration] });

    expect(await partitionsOf('key_verifications', 'key_id', 'key_migrated')).toEqual([
      [old, 'key_verifications_p20240310'],
      [old + 1, 'key_verifications_p20240311'],
    ]);
    expect(await partitionsOf('ratelimit_events', 'identifier', 'user_migrated')).toEqual([
      [old, 'ratelimit_events_p20240310'],
    ]);
    const idsAfter = await rows(
      em,
      sql<{ id: string }>`select id::text from key_verifications where key_id = 'key_migrated' order by id`,
    );
    expect(idsAfter).toEqual(idsBefore);
    // The next week has its partitions already, and the sequence goes on after the moved ids.
    const today = new Date().toISOString().slice(0, 10).replaceAll('-', '');
    expect(await childrenOf('key_verifications')).toContain(`key_verifications_p${today}`);
    await eventTransaction(database.orm, (tx) =>
      writeEvents(tx, verificationTable, [verification('key_migrated', Date.now())]),
    );
    const [newest] = await rows(em, sql<{ id: string }>`select max(id)::text as id from key_verifications`);
    expect(BigInt(newest?.id ?? 0)).toBeGreaterThan(BigInt(idsBefore.at(-1)?.id ?? 0));
    await database.orm.migrator.up();
  });
});

describe('verificationTable / ratelimitTable', () => {
  it('write each event into the partition of its day (UTC)', async () => {
    await createEventPartitions(database.orm, new Date(Date.UTC(2025, 0, 1)), new Date(Date.UTC(2025, 0, 2)));
    const times = [Date.UTC(2025, 0, 1), Date.UTC(2025, 0, 1, 23, 59, 59, 999), Date.UTC(2025, 0, 2, 0, 0, 0)];
    await eventTransaction(database.orm, async (tx) => {
      await writeEvents(
        tx,
        verificationTable,
        times.map((time) => verification('key_days', time)),
      );
      await writeEvents(
        tx,
        ratelimitTable,
        times.map((time) => decision('user_days', time)),
      );
    });
    expect(await partitionsOf('key_verifications', 'key_id', 'key_days')).toEqual([
      [times[0], 'key_verifications_p20250101'],
      [times[1], 'key_verifications_p20250101'],
      [times[2], 'key_verifications_p20250102'],
    ]);
    expect(await partitionsOf('ratelimit_events', 'identifier', 'user_days')).toEqual([
      [times[0], 'ratelimit_events_p20250101'],
      [times[1], 'ratelimit_events_p20250101'],
      [times[2], 'ratelimit_events_p20250102'],
    ]);
  });

  it('write an event of a day without a partition into the default one, which gives it up once the day gets one', async () => {
    const future = Date.UTC(2099, 5, 1, 12);
    const past = Date.UTC(1999, 5, 1, 12);
    await eventTransaction(database.orm, async (tx) => {
      await writeEvents(tx, verificationTable, [verification('key_far', past), verification('key_far', future)]);
      await writeEvents(tx, ratelimitTable, [decision('user_far', future)]);
    });
    expect(await partitionsOf('key_verifications', 'key_id', 'key_far')).toEqual([
      [past, 'key_verifications_default'],
      [future, 'key_verifications_default'],
    ]);

    const created = await createEventPartitions(database.orm, new Date(future), new Date(future));

    expect(created).toEqual(['key_verifications_p20990601', 'ratelimit_events_p20990601']);
    expect(await partitionsOf('key_verifications', 'key_id', 'key_far')).toEqual([
      [past, 'key_verifications_default'],
      [future, 'key_verifications_p20990601'],
    ]);
    expect(await partitionsOf('ratelimit_events', 'identifier', 'user_far')).toEqual([
      [future, 'ratelimit_events_p20990601'],
    ]);
    // Made once: a second run finds them.
    expect(await createEventPartitions(database.orm, new Date(future), new Date(future))).toEqual([]);
  });

  it('store every character of the values as given, and the time to the microsecond', async () => {
    const awkward = 'tab\there, newline\nthere, back\\slash, "quoted", {braced}, comma, NULL, \\N, é ✓';
    const time = Date.UTC(2025, 0, 1, 10) + 0.123;
    await eventTransaction(database.orm, async (tx) => {
      await writeEvents(tx, verificationTable, [
        verification('key_awkward', time, { tags: [awkward, 'NULL', ''], externalId: awkward, identityId: '\\N' }),
      ]);
      await writeEvents(tx, ratelimitTable, [
        { ...decision(awkward, time), requestId: 'req_awkward', passed: false, overrideId: 'ovr_\r' },
      ]);
    });
    const [stored] = await rows(
      database.orm.em.fork(),
      sql<{ tags: string[]; external_id: string; identity_id: string; micros: string }>`
        select tags, external_id, identity_id, (extract(epoch from time) * 1000000)::int8::text as micros
        from key_verifications where key_id = 'key_awkward'`,
    );
    expect(stored).toEqual({
      tags: [awkward, 'NULL', ''],
      external_id: awkward,
      identity_id: '\\N',
      micros: String(Date.UTC(2025, 0, 1, 10) * 1000 + 123),
    });
    const [decided] = await rows(
      database.orm.em.fork(),
      sql<{ passed: boolean; override_id: string }>`select passed, override_id from ratelimit_events
                                                     where identifier = ${awkward}`,
    );
    expect(decided).toEqual({ passed: false, override_id: 'ovr_\r' });
  });

  it('fail as a whole, as refused data, on a value PostgreSQL cannot store, leaving nothing written', async () => {
    const time = Date.UTC(2025, 0, 1, 11);
    const failure = await eventTransaction(database.orm, (tx) =>
      writeEvents(tx, verificationTable, [
        verification('key_refused', time),
        verification('key_refused', time, { tags: ['a\u0000b'] }),
      ]),
    ).catch((error: unknown) => error);
    expect(refusedData(failure)).toBe(true);
    const counted = await rows(
      database.orm.em.fork(),
      sql<{ raw: number; rolled: number }>`
        select (select count(*)::int from key_verifications where key_id = 'key_refused') as raw,
               (select count(*)::int from key_verifications_per_minute where key_id = 'key_refused') as rolled`,
    );
    expect(counted).toEqual([{ raw: 0, rolled: 0 }]);
  });
});

describe('deleteExpiredAnalytics', () => {
  it('drops the partitions of days wholly before the cutoff, deletes older rows of the default partition, keeps the rest', async () => {
    await createEventPartitions(database.orm, new Date(Date.UTC(2020, 0, 1)), new Date(Date.UTC(2020, 0, 3)));
    const times = [Date.UTC(2020, 0, 1, 6), Date.UTC(2020, 0, 2, 6), Date.UTC(2020, 0, 2, 18), Date.UTC(2020, 0, 3, 6)];
    const strays = [Date.UTC(2019, 5, 1), Date.UTC(2021, 5, 1)];
    await eventTransaction(database.orm, async (tx) => {
      await writeEvents(
        tx,
        verificationTable,
        [...times, ...strays].map((time) => verification('key_retention', time)),
      );
      await writeEvents(
        tx,
        ratelimitTable,
        times.map((time) => decision('user_retention', time)),
      );
    });
    const before = new Date(Date.UTC(2020, 0, 2, 12));

    const result = await deleteExpiredAnalytics(database.orm, { before });

    expect(result.dropped).toEqual(
      expect.arrayContaining(['key_verifications_p20200101', 'ratelimit_events_p20200101']),
    );
    const children = await childrenOf('key_verifications');
    expect(children).not.toContain('key_verifications_p20200101');
    expect(children).toEqual(expect.arrayContaining(['key_verifications_p20200102', 'key_verifications_p20200103']));
    expect(await childrenOf('ratelimit_events')).not.toContain('ratelimit_events_p20200101');
    // The straddling day stays whole until it has passed; the default partition is cut at the exact time.
    expect(await partitionsOf('key_verifications', 'key_id', 'key_retention')).toEqual([
      [times[1], 'key_verifications_p20200102'],
      [times[2], 'key_verifications_p20200102'],
      [times[3], 'key_verifications_p20200103'],
      [strays[1], 'key_verifications_default'],
    ]);
    expect(result.deleted.key_verifications).toBeGreaterThanOrEqual(1);
    // Rollups as before: a bucket goes once it ended before the cutoff.
    const [rolled] = await rows(
      database.orm.em.fork(),
      sql<{
        hours: number;
      }>`select count(*)::int as hours from key_verifications_per_hour where key_id = 'key_retention'`,
    );
    expect(rolled?.hours).toBe(3);
    expect((await eventPartitions(database.orm.em.fork(), 'key_verifications')).at(0)?.name).toBe(
      'key_verifications_p20200102',
    );
  });
});

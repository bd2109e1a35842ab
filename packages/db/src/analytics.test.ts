import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type AnalyticsDatabase, createAnalyticsDatabase } from './analytics.ts';
import { eventTransaction } from './eventTransaction.ts';
import { rows, sql } from './sql.ts';
import { createTestDatabase, type TestDatabase, testVerificationEvent, writeEvents } from './testing/index.ts';
import { verificationTable } from './verificationEvents.ts';

const WORKSPACE = 'ws_analytics_db';

let database: TestDatabase;
let analytics: AnalyticsDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  // A server default generous enough that the sort below would stay in memory, on every new connection.
  const name = new URL(database.url).pathname.slice(1);
  await rows(database.orm.em.fork(), sql`alter database ${sql.id(name)} set work_mem = '256MB'`);
  analytics = createAnalyticsDatabase(database.url, { connections: 1 });
  const events = Array.from({ length: 12 }, (_, i) =>
    testVerificationEvent({
      requestId: `req_analytics_db_${i}`,
      workspaceId: WORKSPACE,
      apiId: 'api_analytics_db',
      keyId: 'key_analytics_db',
    }),
  );
  await eventTransaction(database.orm, (tx) => writeEvents(tx, verificationTable, events));
});

afterAll(async () => {
  await analytics.close();
  await database.drop();
});

/** Temporary files PostgreSQL has written for this database (sorts and hashes larger than work_mem). */
async function tempFiles(): Promise<number> {
  const [stats] = await rows(
    database.orm.em.fork(),
    sql<{ n: number }>`select temp_files::int as n from pg_stat_database where datname = current_database()`,
  );
  return stats?.n ?? 0;
}

describe('createAnalyticsDatabase', () => {
  it("gives a query 4 MB for each sort, whatever the server's default", async () => {
    const before = await tempFiles();
    // 12^5 ≈ 250,000 distinct values of about 100 bytes: some 25 MB to sort.
    const [sorted] = await analytics.query({
      dataset: 'verifications',
      workspaceId: WORKSPACE,
      query: `select count(distinct concat(a.request_id, b.request_id, c.request_id, d.request_id, e.request_id)) as n
              from key_verifications_v1 a, key_verifications_v1 b, key_verifications_v1 c, key_verifications_v1 d,
                   key_verifications_v1 e`,
    });
    expect(sorted).toEqual({ n: 12 ** 5 });
    // A connection reports what it wrote at the end of a transaction a second or more after its last report.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await analytics.query({ dataset: 'verifications', workspaceId: WORKSPACE, query: 'select 1' });
    expect(await tempFiles()).toBeGreaterThan(before);
  });
});

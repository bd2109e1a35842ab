// Analytics: writes 1,000,000 verification events with the recorders' batch writer (spool marks, raw
// rows by COPY and the per-minute/hour/day/month rollups, in batches of 10,000, one transaction
// each) into a fresh database whose event tables have a partition for each of the days, then times a
// per-day count by outcome for one key through the analytics query path the procedure uses
// (guard, rewrite, read-only transaction), once over the raw events and once over the day rollup.
//   DATABASE_URL=postgresql://… npm run bench:analytics
// Without DATABASE_URL an embedded PostgreSQL is started in a temporary directory.

import { createAnalyticsDatabase } from '@keyplane/analytics';
import { createOrm, migrate, rows, sql } from '@keyplane/db';
import {
  createEventPartitions,
  rowsOf,
  type VerificationEvent,
  verificationTable,
  writeWithMarks,
} from '@keyplane/events';
import { createDatabase } from './database.ts';

const EVENTS = 1_000_000;
const BATCH = 10_000;
const KEYS = 1000;
const APIS = 10;
const DAYS = 30;
const QUERY_RUNS = 50;
const WORKSPACE = 'ws_bench';

const OUTCOMES = [
  'VALID',
  'VALID',
  'VALID',
  'VALID',
  'VALID',
  'VALID',
  'VALID',
  'RATE_LIMITED',
  'USAGE_EXCEEDED',
  'DISABLED',
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const database = await createDatabase();
const orm = await createOrm(database.url);
const analytics = createAnalyticsDatabase(database.url);
try {
  await migrate(orm);
  const now = Date.now();
  // A fixed pseudo-random sequence (mulberry32), so runs are comparable.
  let seed = 42;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };

  const spacing = (DAYS * 86_400_000) / EVENTS;
  const start = now - DAYS * 86_400_000;
  // What the retention schedule has made of a live system's past days: a partition each.
  await createEventPartitions(orm, new Date(start), new Date(now));
  const write = writeWithMarks(orm, verificationTable, 'bench');
  const ingestStarted = performance.now();
  for (let recorded = 0; recorded < EVENTS; ) {
    const end = Math.min(EVENTS, recorded + BATCH);
    const batch: VerificationEvent[] = [];
    const positions: number[] = [];
    for (; recorded < end; recorded++) {
      positions.push(recorded);
      const key = Math.floor(random() * KEYS);
      batch.push({
        // In arrival order, as a live system records them: DAYS of traffic, oldest first.
        time: start + Math.floor((recorded + random()) * spacing),
        requestId: `req_bench_${recorded}`,
        workspaceId: WORKSPACE,
        apiId: `api_bench_${key % APIS}`,
        keyId: `key_bench_${key}`,
        identityId: key % 3 === 0 ? `id_bench_${key}` : null,
        externalId: key % 3 === 0 ? `user_${key}` : null,
        outcome: OUTCOMES[Math.floor(random() * OUTCOMES.length)] ?? 'VALID',
        tags: key % 2 === 0 ? ['path=/v1/things'] : [],
        spentCredits: 1,
        latencyMs: random() * 5,
      });
    }
    await write({ ...rowsOf(verificationTable, batch), positions });
  }
  const ingestSeconds = (performance.now() - ingestStarted) / 1000;

  const [stored] = await rows(
    orm.em.fork(),
    sql<{ raw: number; minute: number; hour: number; day: number; month: number }>`
      select (select count(*)::int from key_verifications) as raw,
             (select count(*)::int from key_verifications_per_minute) as minute,
             (select count(*)::int from key_verifications_per_hour) as hour,
             (select count(*)::int from key_verifications_per_day) as day,
             (select count(*)::int from key_verifications_per_month) as month`,
  );
  // What autovacuum would have done by now on a live system: planner statistics for the new rows.
  await rows(orm.em.fork(), sql`analyze`);

  const key = 'key_bench_7';
  const queries = {
    'raw key_verifications_v1': `
      select date_trunc('day', to_timestamp(time / 1000.0)) as day, outcome, count(*) as count
      from key_verifications_v1 where key_id = '${key}' group by 1, 2 order by 1, 2`,
    'rollup key_verifications_per_day_v1': `
      select time as day, outcome, sum(count) as count
      from key_verifications_per_day_v1 where key_id = '${key}' group by 1, 2 order by 1, 2`,
  };
  const latencies: Record<string, { p50: number; p95: number; rows: number; events: number }> = {};
  for (const [name, query] of Object.entries(queries)) {
    const run = () => analytics.query({ dataset: 'verifications', workspaceId: WORKSPACE, query });
    for (let i = 0; i < 5; i++) await run();
    const times: number[] = [];
    let result: Record<string, unknown>[] = [];
    for (let i = 0; i < QUERY_RUNS; i++) {
      const started = performance.now();
      result = await run();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const events = result.reduce((sum, row) => sum + Number(row.count), 0);
    latencies[name] = { p50: percentile(times, 50), p95: percentile(times, 95), rows: result.length, events };
  }

  console.log(`\ningest: ${EVENTS.toLocaleString('en')} verification events, batches of ${BATCH.toLocaleString('en')}`);
  console.log(`  ${(EVENTS / ingestSeconds).toFixed(0)} events/s (${ingestSeconds.toFixed(1)} s, rollups included)`);
  console.log(
    `  stored: ${stored?.raw} raw, ${stored?.minute} per-minute, ${stored?.hour} per-hour, ${stored?.day} per-day, ${stored?.month} per-month rows`,
  );
  console.log(`\nper-day count by outcome for one key (${QUERY_RUNS} runs each, on the analytics connections):`);
  console.log('table'.padEnd(38), 'p50 ms'.padStart(8), 'p95 ms'.padStart(8), 'rows'.padStart(6), 'events'.padStart(8));
  for (const [name, measured] of Object.entries(latencies)) {
    console.log(
      name.padEnd(38),
      measured.p50.toFixed(2).padStart(8),
      measured.p95.toFixed(2).padStart(8),
      String(measured.rows).padStart(6),
      String(measured.events).padStart(8),
    );
  }
} finally {
  await analytics.close();
  await orm.close();
  await database.drop();
}

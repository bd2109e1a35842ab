import { rows, sql } from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CopyRows } from './copyRows.ts';
import { copyChunks, copyMilliseconds, eventTransaction } from './eventTransaction.ts';
import { type RatelimitEvent, ratelimitTable } from './ratelimitEvents.ts';
import { testVerificationEvent, writeEvents } from './testing.ts';
import { type VerificationEvent, verificationTable } from './verificationEvents.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

describe('copyChunks', () => {
  it("hands a batch's rows over in slices, with other work let in between them", async () => {
    const seen: string[] = [];
    setImmediate(() => seen.push('other work'));
    for await (const chunk of copyChunks(CopyRows.of(Array.from({ length: 600 }, (_, index) => String(index))))) {
      const rows = chunk.toString().split('\n');
      expect(rows.pop()).toBe('');
      seen.push(`${rows[0]}–${rows.at(-1)}`);
    }
    expect(seen).toEqual(['0–249', 'other work', '250–499', '500–599']);
  });
});

describe('copyMilliseconds', () => {
  it('writes a duration to the microsecond, rounded', () => {
    expect([0, 0.0271004, 0.0005, 12.3456, 1.9999, 7, 86_400_000.25].map(copyMilliseconds)).toEqual([
      '0.000',
      '0.027',
      '0.001',
      '12.346',
      '2.000',
      '7.000',
      '86400000.250',
    ]);
  });

  it('writes what is no duration as its number, for PostgreSQL to judge', () => {
    expect([-1, Number.NaN, Number.POSITIVE_INFINITY, 1e300].map(copyMilliseconds)).toEqual([
      '-1',
      'NaN',
      'Infinity',
      '1e+300',
    ]);
  });
});

/** Text that COPY, array literals or both must escape, and text that needs nothing. */
const AWKWARD = [
  'tab\there',
  'new\nline\r',
  'back\\slash',
  'with "quotes"',
  '{braces},comma',
  'NULL',
  '',
  ' ',
  'ünï©ødé 😀',
];

describe('an event as its row', () => {
  it('reads back as the same verification, whatever its text holds', () => {
    const events: VerificationEvent[] = [
      testVerificationEvent({ requestId: 'req_1', workspaceId: 'ws_1', apiId: 'api_1', keyId: 'key_1' }),
      ...AWKWARD.map((text, index) => ({
        time: 1_764_000_000_000 + index + 0.25,
        requestId: `req_${text}`,
        workspaceId: 'ws_1',
        apiId: 'api_1',
        keyId: 'key_1',
        identityId: `id_${text}`,
        externalId: text,
        outcome: 'RATE_LIMITED',
        tags: [text, `path=/v1/${text}`],
        spentCredits: index,
        latencyMs: 0.125 * index,
      })),
    ];
    for (const event of events) {
      const row = verificationTable.row(event);
      expect(row).not.toContain('\n');
      expect(verificationTable.parse(row)).toEqual(event);
    }
  });

  /** A rate-limit call of one decision, with `fields` in place of the defaults. */
  const ratelimitCall = (fields: Partial<RatelimitEvent> = {}): RatelimitEvent => ({
    time: 1_764_000_000_000,
    requestId: 'req_1',
    workspaceId: 'ws_1',
    namespaceId: 'rlns_1',
    identifier: 'user_1',
    passed: true,
    limit: 100,
    remaining: 9,
    overrideId: null,
    latencyMs: 0.5,
    ...fields,
  });

  it('reads back as the same rate-limit decision, whatever its text holds', () => {
    for (const [index, text] of AWKWARD.entries()) {
      const event = ratelimitCall({
        time: 1_764_000_000_000 + index,
        requestId: `req_${index}`,
        identifier: text,
        passed: index % 2 === 0,
        remaining: index,
        overrideId: index % 2 === 0 ? null : `rlor_${text}`,
      });
      expect(ratelimitTable.parse(ratelimitTable.row(event))).toEqual(event);
    }
  });

  it("reads back as the same rate-limit call, its further decisions' text whatever it holds", () => {
    const event = ratelimitCall({
      passed: false,
      further: AWKWARD.map((text, index) => ({
        namespaceId: `rlns_${index}`,
        identifier: text,
        limit: index + 1,
        remaining: index,
        overrideId: index % 2 === 0 ? null : `rlor_${text}`,
      })),
    });
    expect(ratelimitTable.parse(ratelimitTable.row(event))).toEqual(event);
  });

  it('reads as nothing a rate-limit row whose further decisions are damaged', () => {
    const row = ratelimitTable.row(
      ratelimitCall({
        further: [{ namespaceId: 'rlns_2', identifier: 'user_2', limit: 10, remaining: 9, overrideId: null }],
      }),
    );
    const furtherAt = row.lastIndexOf('\t') + 1;
    for (const damaged of ['[{"namespaceId":"rlns_2"}]', '{}', '[1]', '[{']) {
      expect(ratelimitTable.parse(row.slice(0, furtherAt) + damaged)).toBeUndefined();
    }
  });

  it('reads as nothing when the text is not a whole row', () => {
    const row = verificationTable.row(
      testVerificationEvent({ requestId: 'req_1', workspaceId: 'ws_1', apiId: 'api_1', keyId: 'key_1', tags: ['a'] }),
    );
    for (const damaged of [
      row.slice(0, row.indexOf('\t')),
      row.slice(0, row.lastIndexOf('\t')),
      '\0\0\0\0',
      '',
      `${row}\textra`,
    ]) {
      expect(verificationTable.parse(damaged)).toBeUndefined();
    }
    expect(ratelimitTable.parse(row)).toBeUndefined();
    const call = ratelimitTable.row(ratelimitCall({}));
    expect(ratelimitTable.parse(call.slice(0, call.lastIndexOf('\t')))).toBeUndefined();
  });
});

describe("a batch's rollups", () => {
  // Events of groups taking turns, and minutes going back (a clock set back): each group's count
  // must come out as the events it had, however its totals were filed.
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  const times = [minute, minute + 1000, minute - 60_000, minute + 2000, minute - 59_000, minute + 3000];

  it('counts every verification in its minute, key and outcome', async () => {
    const events = times.flatMap((time, index) =>
      ['VALID', 'RATE_LIMITED', 'VALID'].map((outcome, turn) =>
        testVerificationEvent({
          requestId: `req_turns_${index}_${turn}`,
          workspaceId: 'ws_turns',
          apiId: 'api_turns',
          keyId: `key_turns_${turn % 2}`,
          time,
          outcome,
          spentCredits: 1,
        }),
      ),
    );
    await eventTransaction(database.orm, (tx) => writeEvents(tx, verificationTable, events));
    const rolled = await rows(
      database.orm.em.fork(),
      sql<{ time: string; keyId: string; outcome: string; count: number; spent: number }>`
        select time::text, key_id as "keyId", outcome, count::int, spent_credits::int as spent
        from key_verifications_per_minute where workspace_id = 'ws_turns' order by time, key_id, outcome`,
    );
    expect(rolled).toEqual([
      { time: String(minute - 60_000), keyId: 'key_turns_0', outcome: 'VALID', count: 4, spent: 4 },
      { time: String(minute - 60_000), keyId: 'key_turns_1', outcome: 'RATE_LIMITED', count: 2, spent: 2 },
      { time: String(minute), keyId: 'key_turns_0', outcome: 'VALID', count: 8, spent: 8 },
      { time: String(minute), keyId: 'key_turns_1', outcome: 'RATE_LIMITED', count: 4, spent: 4 },
    ]);
  });

  it('counts every rate-limit decision in its minute, identifier and outcome', async () => {
    const events: RatelimitEvent[] = times.flatMap((time, index) =>
      [true, false, true].map((passed, turn) => ({
        time,
        requestId: `req_turns_${index}_${turn}`,
        workspaceId: 'ws_turns',
        namespaceId: 'rlns_turns',
        identifier: `user_${turn % 2}`,
        passed,
        limit: 10,
        remaining: 0,
        overrideId: null,
        latencyMs: 1,
      })),
    );
    await eventTransaction(database.orm, (tx) => writeEvents(tx, ratelimitTable, events));
    const rolled = await rows(
      database.orm.em.fork(),
      sql<{ time: string; identifier: string; passed: boolean; count: number }>`
        select time::text, identifier, passed, count::int
        from ratelimit_events_per_minute where workspace_id = 'ws_turns' order by time, identifier, passed`,
    );
    expect(rolled).toEqual([
      { time: String(minute - 60_000), identifier: 'user_0', passed: true, count: 4 },
      { time: String(minute - 60_000), identifier: 'user_1', passed: false, count: 2 },
      { time: String(minute), identifier: 'user_0', passed: true, count: 8 },
      { time: String(minute), identifier: 'user_1', passed: false, count: 4 },
    ]);
  });

  it("counts each of a call's decisions, its further ones too", async () => {
    const decision = (identifier: string) => ({
      namespaceId: 'rlns_calls',
      identifier,
      limit: 10,
      remaining: 0,
      overrideId: null,
    });
    const events: RatelimitEvent[] = [true, false].map((passed) => ({
      ...decision('user_a'),
      time: minute,
      requestId: `req_calls_${passed}`,
      workspaceId: 'ws_calls',
      passed,
      latencyMs: 1,
      further: [decision('user_b'), decision('user_a')],
    }));
    await eventTransaction(database.orm, (tx) => writeEvents(tx, ratelimitTable, events));
    const rolled = await rows(
      database.orm.em.fork(),
      sql<{ identifier: string; passed: boolean; count: number }>`
        select identifier, passed, count::int
        from ratelimit_events_per_hour where workspace_id = 'ws_calls' order by identifier, passed`,
    );
    expect(rolled).toEqual([
      { identifier: 'user_a', passed: false, count: 2 },
      { identifier: 'user_a', passed: true, count: 2 },
      { identifier: 'user_b', passed: false, count: 1 },
      { identifier: 'user_b', passed: true, count: 1 },
    ]);
    const [raw] = await rows(
      database.orm.em.fork(),
      sql<{ count: number }>`select count(*)::int as count from ratelimit_events where workspace_id = 'ws_calls'`,
    );
    expect(raw?.count).toBe(2);
  });
});

describe('a batch of more events than a slice', () => {
  it('writes every verification, and counts every one in the rollups', async () => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const events = Array.from({ length: 1001 }, (_, index) =>
      testVerificationEvent({
        requestId: `req_sliced_${index}`,
        workspaceId: 'ws_sliced',
        apiId: 'api_sliced',
        keyId: `key_sliced_${index % 2}`,
        time: minute + (index % 60) * 1000,
        spentCredits: 1,
      }),
    );
    await eventTransaction(database.orm, (tx) => writeEvents(tx, verificationTable, events));
    const [written] = await rows(
      database.orm.em.fork(),
      sql<{ raw: number; distinct: number; rolled: number; spent: number }>`
        select (select count(*)::int from key_verifications where workspace_id = 'ws_sliced') as raw,
               (select count(distinct request_id)::int from key_verifications where workspace_id = 'ws_sliced') as distinct,
               (select sum(count)::int from key_verifications_per_minute where workspace_id = 'ws_sliced') as rolled,
               (select sum(spent_credits)::int from key_verifications_per_month where workspace_id = 'ws_sliced') as spent`,
    );
    expect(written).toEqual({ raw: 1001, distinct: 1001, rolled: 1001, spent: 1001 });
  });

  it('writes every rate-limit decision, and counts every one in the rollups', async () => {
    const events = Array.from({ length: 601 }, (_, index) => ({
      time: Date.now(),
      requestId: `req_sliced_decision_${index}`,
      workspaceId: 'ws_sliced',
      namespaceId: 'rlns_sliced',
      identifier: `user_${index % 3}`,
      passed: index % 2 === 0,
      limit: 10,
      remaining: 0,
      overrideId: null,
      latencyMs: 1,
    }));
    await eventTransaction(database.orm, (tx) => writeEvents(tx, ratelimitTable, events));
    const [written] = await rows(
      database.orm.em.fork(),
      sql<{ raw: number; rolled: number; passed: number }>`
        select (select count(*)::int from ratelimit_events where workspace_id = 'ws_sliced') as raw,
               (select sum(count)::int from ratelimit_events_per_hour where workspace_id = 'ws_sliced') as rolled,
               (select sum(count)::int from ratelimit_events_per_day where workspace_id = 'ws_sliced' and passed) as passed`,
    );
    expect(written).toEqual({ raw: 601, rolled: 601, passed: 301 });
  });
});

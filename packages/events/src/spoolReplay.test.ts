import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { rows, sql } from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { SpoolProcessPlan } from '../test/spoolProcess.ts';
import { createEventRecorder, type EventStream, writeWithMarks } from './eventRecorder.ts';
import { type EventSpool, openEventSpool } from './eventSpool.ts';
import { ratelimitStream, verificationStream } from './recorders.ts';
import { databaseIdOf } from './spoolMarks.ts';
import { type SpoolReplay, type SpoolReplayOptions, startSpoolReplay } from './spoolReplay.ts';
import { type VerificationEvent, type VerificationTotals, verificationTable } from './verificationEvents.ts';

const SPOOL_PROCESS = fileURLToPath(new URL('../test/spoolProcess.ts', import.meta.url));

let database: TestDatabase;
let databaseId: string;
let dir: string;
let keyId: string;
const children: ChildProcess[] = [];
const replays: SpoolReplay[] = [];

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  databaseId = await databaseIdOf(database.orm.em.fork());
});
afterAll(async () => {
  await database.drop();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyplane-replay-'));
  keyId = `key_${Math.random().toString(36).slice(2)}`;
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const replay of replays.splice(0)) await replay.close();
  await rm(dir, { recursive: true, force: true });
});

function verification(index: number, tags: string[] = []): VerificationEvent {
  return {
    time: Date.now(),
    requestId: `req_${keyId}_${index}`,
    workspaceId: 'ws_replay',
    apiId: 'api_replay',
    keyId,
    identityId: null,
    externalId: null,
    outcome: 'VALID',
    tags,
    spentCredits: 1,
    latencyMs: 1,
  };
}

/** A real process spooling these events, which commits the first `committed` of them and then waits to be killed. */
async function spoolProcess(events: VerificationEvent[], committed: number) {
  const plan: SpoolProcessPlan = {
    dir,
    databaseId,
    databaseUrl: database.url,
    events,
    committed,
  };
  const child = spawn(process.execPath, [SPOOL_PROCESS, JSON.stringify(plan)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const { value: owner } = await lines.next();
  return {
    owner: String(owner),
    kill: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** This test's process, replaying the spool directory, with what it reports. */
async function replaying(options: SpoolReplayOptions = {}) {
  const spool = await openEventSpool({ dir, databaseId });
  const reported = { replayed: [] as { owner: string; events: number }[], refused: [] as unknown[] };
  const replay = startSpoolReplay(database.orm, spool, [verificationStream, ratelimitStream], {
    onReplayed: (replayed) => reported.replayed.push(replayed),
    onRefused: (error) => reported.refused.push(error),
    ...options,
  });
  replays.push(replay);
  return { spool, replay, reported };
}

/** The request ids recorded for this test's key, in order, and its events counted by each rollup. */
async function recorded() {
  const em = database.orm.em.fork();
  const raw = await rows(
    em,
    sql<{ requestId: string }>`select request_id as "requestId" from key_verifications where key_id = ${keyId}
                                order by request_id`,
  );
  const rollups = await Promise.all(
    ['minute', 'hour', 'day', 'month'].map(async (granularity) => {
      const [total] = await rows(
        em,
        sql<{ count: number }>`select coalesce(sum(count), 0)::int as count
                               from ${sql.table(`key_verifications_per_${granularity}`)} where key_id = ${keyId}`,
      );
      return total?.count;
    }),
  );
  return { requestIds: raw.map(({ requestId }) => requestId), rollups };
}

const requestIdsOf = (events: VerificationEvent[]) => events.map(({ requestId }) => requestId).sort();

async function leftInSpool(): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((path) => path.endsWith('.seg'));
}

async function marksOf(owner: string): Promise<number> {
  const [found] = await rows(
    database.orm.em.fork(),
    sql<{ n: number }>`select count(*)::int as n from event_spool_marks where owner = ${owner}`,
  );
  return found?.n ?? 0;
}

describe('replaying the spool of a dead process', () => {
  it('writes what it had not committed, once, when it died between a commit and removing its spool file', async () => {
    const events = Array.from({ length: 10 }, (_, index) => verification(index));
    const crashed = await spoolProcess(events, 4);
    expect((await recorded()).requestIds).toEqual(requestIdsOf(events.slice(0, 4)));
    await crashed.kill();

    const { replay, reported } = await replaying();
    await replay.replayNow();

    expect(await recorded()).toEqual({ requestIds: requestIdsOf(events), rollups: [10, 10, 10, 10] });
    expect(reported.replayed).toEqual([{ owner: crashed.owner, events: 6 }]);
    expect(await leftInSpool()).toEqual([]);
    expect(await marksOf(crashed.owner)).toBe(0);
    // Nothing more on the next pass.
    await replay.replayNow();
    expect((await recorded()).rollups).toEqual([10, 10, 10, 10]);
  });

  it('never takes the spool of a live process, and takes it as soon as the process is dead', async () => {
    const events = Array.from({ length: 5 }, (_, index) => verification(index));
    const live = await spoolProcess(events, 0);
    const { replay } = await replaying();
    await replay.replayNow();
    expect((await recorded()).requestIds).toEqual([]);
    expect(await leftInSpool()).toHaveLength(1);

    await live.kill();
    await replay.replayNow();
    expect(await recorded()).toEqual({ requestIds: requestIdsOf(events), rollups: [5, 5, 5, 5] });
    expect(await leftInSpool()).toEqual([]);
  });

  it('drops an event the database refuses, alone, and does not replay it again', async () => {
    // The API refuses U+0000 in tags; an event holding it stands for any value PostgreSQL cannot store.
    const events = [verification(0), verification(1, ['bad\u0000tag']), verification(2)];
    const crashed = await spoolProcess(events, 0);
    await crashed.kill();
    const { replay, reported } = await replaying();
    await replay.replayNow();
    const [first, , third] = events;
    expect(await recorded()).toEqual({ requestIds: [first?.requestId, third?.requestId], rollups: [2, 2, 2, 2] });
    expect(reported.refused).toHaveLength(1);
    expect(await leftInSpool()).toEqual([]);

    await replay.replayNow();
    expect(reported.refused).toHaveLength(1);
  });

  it('goes on where it stopped when the database went away during a replay, writing nothing twice', async () => {
    const events = Array.from({ length: 6 }, (_, index) => verification(index));
    const crashed = await spoolProcess(events, 1);
    await crashed.kill();
    // The database goes away after the first batch of the replay, and stays away until the test says.
    let away: boolean | undefined;
    const failing: EventStream<VerificationEvent, VerificationTotals> = {
      ...verificationStream,
      table: {
        ...verificationTable,
        write: async (tx, batch) => {
          if (away) throw new Error('connection lost');
          await verificationTable.write(tx, batch);
          away ??= true;
        },
      },
    };
    const errors: unknown[] = [];
    const spool = await openEventSpool({ dir, databaseId });
    const replay = startSpoolReplay(database.orm, spool, [failing], {
      maxBatch: 2,
      onError: (error) => errors.push(error),
    });
    replays.push(replay);
    await replay.replayNow();
    expect(errors.length).toBeGreaterThan(0);
    expect(errors).toEqual(errors.map(() => new Error('connection lost')));
    expect((await recorded()).requestIds).toEqual(requestIdsOf(events.slice(0, 3)));

    away = false;
    await replay.replayNow();
    expect(await recorded()).toEqual({ requestIds: requestIdsOf(events), rollups: [6, 6, 6, 6] });
    expect(await leftInSpool()).toEqual([]);
  });
});

describe('replaying a spool with lines of other streams', () => {
  it('skips the lines of streams it does not know without losing those after', async () => {
    const [later, known] = Array.from({ length: 2 }, (_, index) => verification(index));
    // A dead process's segment with a line of a stream this version lacks (a later version's), then one it knows.
    await mkdir(join(dir, databaseId, 'later'), { recursive: true });
    await writeFile(
      join(dir, databaseId, 'later', '0.seg'),
      `#0 2\nX${JSON.stringify(later)}\nV${known && verificationTable.row(known)}\n`,
    );
    const damaged: number[] = [];
    const { replay, reported } = await replaying({ onDamaged: (_, lines) => damaged.push(lines) });
    await replay.replayNow();
    expect(await recorded()).toEqual({ requestIds: [known?.requestId], rollups: [1, 1, 1, 1] });
    expect(damaged).toEqual([1]);
    expect(reported.replayed).toEqual([{ owner: 'later', events: 1 }]);
    expect(await leftInSpool()).toEqual([]);
  });
});

describe('an outage of the database', () => {
  it('keeps every event: those dropped from memory are read back from the spool, each written once', async () => {
    const spool: EventSpool = await openEventSpool({ dir, databaseId });
    const replay = startSpoolReplay(database.orm, spool, [verificationStream]);
    replays.push(replay);
    const write = writeWithMarks(database.orm, verificationTable, spool.owner);
    let down = true;
    const recorder = createEventRecorder(
      spool,
      verificationStream,
      (batch) => (down ? Promise.reject(new Error('database down')) : write(batch)),
      { maxBuffered: 10, onError: () => {} },
    );
    const events = Array.from({ length: 25 }, (_, index) => verification(index));
    for (const event of events) await recorder.record(event);
    await recorder.flush();

    down = false;
    await recorder.close();
    expect((await recorded()).requestIds.length).toBeLessThanOrEqual(10);
    await replay.replayNow();
    expect(await recorded()).toEqual({ requestIds: requestIdsOf(events), rollups: [25, 25, 25, 25] });
    await replay.close();
    replays.length = 0;
    expect(await readdir(dir, { recursive: true })).toEqual([]);
    expect(await marksOf(spool.owner)).toBe(0);
  });
});

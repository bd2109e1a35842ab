import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventRecorder, type EventRecorder, type EventStream, type SpooledBatch } from './eventRecorder.ts';
import { type EventSpool, openEventSpool } from './eventSpool.ts';

let spoolDir: string;
let spool: EventSpool;
beforeEach(async () => {
  spoolDir = await mkdtemp(join(tmpdir(), 'keyplane-recorder-'));
  spool = await openEventSpool({ dir: spoolDir, databaseId: 'test' });
});
afterEach(async () => {
  await spool.close();
  await rm(spoolDir, { recursive: true, force: true });
});

/** Numbers as events: each one's row is its decimal text, and a batch's totals are their sum. */
const numbers: EventStream<number, { sum: number }> = {
  tag: 'n',
  table: {
    row: String,
    parse: Number,
    noTotals: () => ({ sum: 0 }),
    count: (totals, event) => {
      totals.sum += event;
    },
    // The tests hand the recorder their own write.
    write: async () => {},
  },
};

/** The numbers of a batch, whose totals must count exactly its rows, each with its spool position. */
function numbersOf(batch: SpooledBatch<{ sum: number }>): number[] {
  const events = [...batch.rows].map(Number);
  expect(batch.totals.sum).toBe(events.reduce((sum, event) => sum + event, 0));
  expect(batch.positions).toHaveLength(events.length);
  return events;
}

/** What PostgreSQL answers for a value it cannot store (SQLSTATE 22P05, untranslatable character). */
const refusedValue = () => Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' });

describe('the event recorder', () => {
  it('writes buffered events in batches, in order', async () => {
    const written: number[][] = [];
    const recorder = createEventRecorder(spool, numbers, async (spooled) => void written.push(numbersOf(spooled)), {
      maxBatch: 2,
    });
    for (const event of [1, 2, 3, 4, 5]) recorder.record(event);
    await recorder.close();
    expect(written).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('writes in one flush only what was buffered when it began, in full batches', async () => {
    const written: number[][] = [];
    let recorder: EventRecorder<number> | undefined;
    recorder = createEventRecorder(
      spool,
      numbers,
      async (spooled) => {
        const batch = numbersOf(spooled);
        written.push(batch);
        // Events keep arriving while a batch is written, as on a busy node.
        recorder?.record(100 + written.length);
      },
      { maxBatch: 3 },
    );
    for (const event of [1, 2, 3, 4, 5, 6]) recorder.record(event);
    await recorder.flush();
    expect(written).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    await recorder.close();
    expect(written.slice(2).flat()).toEqual([101, 102]);
  });

  it('a flush asked for while another runs also writes what was recorded since', async () => {
    const written: number[] = [];
    let release: () => void = () => {};
    const recorder = createEventRecorder(spool, numbers, async (spooled) => {
      const batch = numbersOf(spooled);
      if (batch.includes(1)) await new Promise<void>((resolve) => (release = resolve));
      written.push(...batch);
    });
    recorder.record(1);
    const first = recorder.flush();
    recorder.record(2);
    const second = recorder.flush();
    release();
    await second;
    expect(written).toEqual([1, 2]);
    await first;
    await recorder.close();
  });

  it('keeps a failed batch and writes it before newer events once the database is back', async () => {
    const written: number[] = [];
    let down = true;
    const errors: unknown[] = [];
    const recorder = createEventRecorder(
      spool,
      numbers,
      async (spooled) => {
        const batch = numbersOf(spooled);
        if (down) throw new Error('database down');
        written.push(...batch);
      },
      { onError: (error) => errors.push(error) },
    );
    recorder.record(1);
    await recorder.flush();
    recorder.record(2);
    down = false;
    await recorder.close();
    expect(written).toEqual([1, 2]);
    expect(errors).toHaveLength(1);
  });

  it('drops only the events whose values the database refuses, writing the others in order', async () => {
    const written: number[] = [];
    const refused: unknown[] = [];
    const errors: unknown[] = [];
    const recorder = createEventRecorder(
      spool,
      numbers,
      async (spooled) => {
        const batch = numbersOf(spooled);
        if (batch.includes(13)) throw refusedValue();
        written.push(...batch);
      },
      { onRefused: (error) => refused.push(error), onError: (error) => errors.push(error) },
    );
    for (let event = 10; event < 20; event++) recorder.record(event);
    await recorder.close();
    expect(written).toEqual([10, 11, 12, 14, 15, 16, 17, 18, 19]);
    expect(refused).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('keeps what is still unwritten when the database goes away while it looks for a refused event', async () => {
    const written: number[] = [];
    let down = false;
    const recorder = createEventRecorder(
      spool,
      numbers,
      async (spooled) => {
        const batch = numbersOf(spooled);
        if (down) throw new Error('connection lost');
        if (batch.includes(3)) throw refusedValue();
        written.push(...batch);
        // The first half went in; the database is gone before the second.
        if (batch.length === 2) down = true;
      },
      { onError: () => {} },
    );
    for (const event of [1, 2, 3, 4]) recorder.record(event);
    await recorder.flush();
    expect(written).toEqual([1, 2]);
    down = false;
    await recorder.close();
    expect(written).toEqual([1, 2, 4]);
  });

  it('counts against maxBuffered only the events waiting, not those of a write under way', async () => {
    const written: number[] = [];
    let release: () => void = () => {};
    const recorder = createEventRecorder(
      spool,
      numbers,
      async (spooled) => {
        const batch = numbersOf(spooled);
        if (batch.includes(1)) await new Promise<void>((resolve) => (release = resolve));
        written.push(...batch);
      },
      { maxBuffered: 10 },
    );
    for (let event = 1; event <= 10; event++) recorder.record(event);
    const flushed = recorder.flush();
    for (let event = 11; event <= 19; event++) recorder.record(event);
    expect(recorder.evicted).toBe(0);
    expect(recorder.buffered).toBe(9);
    release();
    await flushed;
    await recorder.close();
    expect(written).toEqual(Array.from({ length: 19 }, (_, index) => index + 1));
  });

  it('keeps only the newest events through a long outage, bounded by maxBuffered', async () => {
    const written: number[] = [];
    let down = true;
    const recorder = createEventRecorder(
      spool,
      numbers,
      async (spooled) => {
        const batch = numbersOf(spooled);
        if (down) throw new Error('database down');
        written.push(...batch);
      },
      { maxBuffered: 10, onError: () => {} },
    );
    for (let event = 1; event <= 25; event++) recorder.record(event);
    // What the metrics report: the buffer stays within its bound, and every event let go is counted.
    expect(recorder.buffered).toBeLessThanOrEqual(10);
    expect(recorder.buffered + recorder.evicted).toBe(25);
    down = false;
    await recorder.close();
    expect(recorder.buffered).toBe(0);
    expect(written.length).toBeLessThanOrEqual(10);
    expect(written.at(-1)).toBe(25);
    expect(written).toEqual([...written].sort((a, b) => a - b));
  });
});

import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EventSpool, openEventSpool, readSegment, type SpoolOptions } from './eventSpool.ts';

let dir: string;
const opened: EventSpool[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyplane-spool-'));
});
afterEach(async () => {
  for (const spool of opened.splice(0)) await spool.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(options: Partial<SpoolOptions> = {}): Promise<EventSpool> {
  const spool = await openEventSpool({ dir, databaseId: 'db', ...options });
  opened.push(spool);
  return spool;
}

const segmentsOf = async (spool: EventSpool) =>
  (await readdir(join(dir, 'db', spool.owner))).filter((file) => file.endsWith('.seg')).sort();

/** Lets the event loop finish its turn, so the chunk of the lines appended so far is written. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the event spool', () => {
  it('writes the lines of one event-loop turn in one chunk, before their promise resolves', async () => {
    const spool = await open();
    expect([spool.append('v', '{"n":1}'), spool.append('r', '{"n":2}')]).toEqual([0, 1]);
    const written = spool.written();
    expect(readdirSync(join(dir, 'db', spool.owner))).toEqual([]);
    await written;
    spool.append('v', '{"n":3}');
    await spool.written();
    const [segment] = await segmentsOf(spool);
    expect(await readFile(join(dir, 'db', spool.owner, segment ?? ''), 'utf8')).toBe(
      '#0 2\nv{"n":1}\nr{"n":2}\n#2 1\nv{"n":3}\n',
    );
  });

  it('deletes a segment once all its events are settled', async () => {
    const spool = await open();
    const positions = [spool.append('v', '{}'), spool.append('v', '{}')];
    await spool.written();
    spool.settle(positions.slice(0, 1));
    expect(await segmentsOf(spool)).toHaveLength(1);
    spool.settle(positions.slice(1));
    expect(await segmentsOf(spool)).toEqual([]);
  });

  it('counts events settled before their chunk was written', async () => {
    const spool = await open();
    const position = spool.append('v', '{}');
    spool.settle([position]);
    await spool.written();
    expect(await segmentsOf(spool)).toEqual([]);
  });

  it('hands back for reading a segment whose events were dropped from memory, once nothing else of it is pending', async () => {
    const spool = await open();
    const positions = [spool.append('v', '{}'), spool.append('v', '{}'), spool.append('v', '{}')];
    await spool.written();
    spool.evict(positions.slice(0, 1));
    expect(spool.segmentsToReadBack()).toEqual([]);
    spool.settle(positions.slice(1));
    const [segment] = spool.segmentsToReadBack();
    expect(segment).toMatchObject({ owner: spool.owner, start: 0 });
    // New events go to a new segment meanwhile.
    spool.append('v', '{}');
    await spool.written();
    expect(await segmentsOf(spool)).toEqual(['0.seg', '3.seg']);
    if (segment) spool.remove(segment);
    expect(await segmentsOf(spool)).toEqual(['3.seg']);
  });

  it('keeps its own segments under maxBytes, deleting the oldest and saying what was lost', async () => {
    const dropped: { lost: number; inMemoryOnly: number }[] = [];
    const maxBytes = 1024 * 1024;
    const spool = await open({ maxBytes, onFull: (drop) => dropped.push(drop) });
    const line = JSON.stringify({ padding: 'x'.repeat(40 * 1024) });
    const positions: number[] = [];
    for (let turn = 0; turn < 20; turn++) {
      positions.push(spool.append('v', line));
      await nextTurn();
    }
    // The oldest events were dropped from memory too: those are lost with their segment.
    spool.evict(positions.slice(0, 2));
    for (let turn = 0; turn < 20; turn++) {
      spool.append('v', line);
      await nextTurn();
    }
    const sizes = await Promise.all(
      (await segmentsOf(spool)).map(async (file) => (await stat(join(dir, 'db', spool.owner, file))).size),
    );
    expect(sizes.reduce((total, size) => total + size, 0)).toBeLessThanOrEqual(maxBytes);
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped[0]).toEqual({ lost: 2, inMemoryOnly: expect.any(Number) });
    expect(dropped.slice(1).every(({ lost }) => lost === 0)).toBe(true);
  });

  it('leaves nothing behind when it closes with every event settled, and its segments otherwise', async () => {
    const settled = await open();
    settled.settle([settled.append('v', '{}')]);
    const unsettled = await open();
    unsettled.append('v', '{}');
    expect(await settled.close()).toEqual({ leftBehind: false });
    expect(await unsettled.close()).toEqual({ leftBehind: true });
    opened.length = 0;
    expect((await readdir(dir, { recursive: true })).sort()).toEqual([
      'db',
      `db/${unsettled.owner}`,
      `db/${unsettled.owner}/0.seg`,
    ]);
  });

  it('never takes over the spool of a live process', async () => {
    const live = await open();
    live.append('v', '{}');
    await live.written();
    const other = await open();
    expect(await other.adoptOrphans()).toEqual([]);
    expect(await segmentsOf(live)).toEqual(['0.seg']);
  });

  it('takes over the spool of a process that closed with events left, and of one that died holding another', async () => {
    const gone = await open();
    gone.append('v', '{}');
    await gone.close();
    opened.splice(opened.indexOf(gone), 1);
    // A spool taken over by a process that died before replaying it: that process listens nowhere.
    const held = join(dir, 'db', 'earlier@vanished');
    await mkdir(held);
    await writeFile(join(held, '7.seg'), '#7 1\nv{}\n');
    const spool = await open();
    const orphans = await spool.adoptOrphans();
    const byOwner = <T extends { owner: string }>(list: T[]) => list.sort((a, b) => a.owner.localeCompare(b.owner));
    expect(
      byOwner(orphans.map(({ owner, segments }) => ({ owner, starts: segments.map(({ start }) => start) }))),
    ).toEqual(
      byOwner([
        { owner: 'earlier', starts: [7] },
        { owner: gone.owner, starts: [0] },
      ]),
    );
    expect((await readdir(join(dir, 'db'))).sort()).toEqual(
      [spool.owner, `${gone.owner}@${spool.owner}`, `earlier@${spool.owner}`].sort(),
    );
    // Held by a live process now: no other takes them.
    const other = await open();
    expect(await other.adoptOrphans()).toEqual([]);
  });
});

/** Lines of JSON, as the spool's own tests write them; undefined for a damaged one. */
function readJson(_tag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

describe('reading a segment back', () => {
  it('gives each intact line its position, skipping what a crash cut short or damaged', async () => {
    const path = join(dir, 'damaged.seg');
    await writeFile(
      path,
      // A chunk; one whose middle the kernel never wrote back (zeros); one cut short by a crash.
      '#0 2\nv{"a":0}\nr{"a":1}\n#2 3\nv{"a":2}\n\0\0\0\0{"a":3}\nv{"a":4}\n#5 2\nv{"a":5}\nv{"a":',
    );
    expect(readSegment(path, readJson)).toEqual({
      lines: [
        { position: 0, tag: 'v', event: { a: 0 } },
        { position: 1, tag: 'r', event: { a: 1 } },
        { position: 2, tag: 'v', event: { a: 2 } },
        { position: 5, tag: 'v', event: { a: 5 } },
      ],
      damaged: 2,
    });
  });
});

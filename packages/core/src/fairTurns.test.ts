import { describe, expect, it } from 'vitest';
import { FairTurns } from './fairTurns.ts';

const LONG_WAIT_MS = 60_000;

/** Takes a turn for `tenant` and records, once served, who got it in `served`. */
function queue(turns: FairTurns, tenant: string, served: string[], waitMs = LONG_WAIT_MS): Promise<boolean> {
  return turns.take(tenant, waitMs).then((taken) => {
    if (taken) served.push(tenant);
    return taken;
  });
}

describe('FairTurns', () => {
  it('holds at most its capacity at once', async () => {
    const turns = new FairTurns(2);
    const served: string[] = [];
    const waiting = [queue(turns, 'ws_a', served), queue(turns, 'ws_b', served), queue(turns, 'ws_c', served)];
    await Promise.resolve();
    expect(served).toEqual(['ws_a', 'ws_b']);
    turns.give();
    expect(await waiting[2]).toBe(true);
    expect(served).toEqual(['ws_a', 'ws_b', 'ws_c']);
  });

  it("serves a tenant that waits before another tenant's next query, though that one queued first", async () => {
    const turns = new FairTurns(1);
    const served: string[] = [];
    // ws_a runs one query and queues two more; then ws_b queues one.
    await queue(turns, 'ws_a', served);
    const a2 = queue(turns, 'ws_a', served);
    const a3 = queue(turns, 'ws_a', served);
    const b1 = queue(turns, 'ws_b', served);
    turns.give();
    await b1;
    expect(served).toEqual(['ws_a', 'ws_b']);
    turns.give();
    await a2;
    turns.give();
    await a3;
    expect(served).toEqual(['ws_a', 'ws_b', 'ws_a', 'ws_a']);
  });

  it('goes round the waiting tenants, each in turn, and a tenant’s own queries in arrival order', async () => {
    const turns = new FairTurns(1);
    const served: string[] = [];
    await queue(turns, 'holder', served);
    const waiting = ['ws_a:1', 'ws_a:2', 'ws_a:3', 'ws_b:1', 'ws_b:2', 'ws_c:1'].map((name) =>
      turns.take(name.split(':')[0] ?? '', LONG_WAIT_MS).then(() => served.push(name)),
    );
    for (let i = 0; i < waiting.length; i++) {
      turns.give();
      await Promise.resolve();
    }
    await Promise.all(waiting);
    expect(served).toEqual(['holder', 'ws_a:1', 'ws_b:1', 'ws_c:1', 'ws_a:2', 'ws_b:2', 'ws_a:3']);
  });

  it('lets a waiter give up after its wait, without taking a turn from anyone', async () => {
    const turns = new FairTurns(1);
    const served: string[] = [];
    await queue(turns, 'ws_a', served);
    expect(await queue(turns, 'ws_b', served, 10)).toBe(false);
    const c = queue(turns, 'ws_c', served);
    turns.give();
    expect(await c).toBe(true);
    turns.give();
    // The turn is free again: taken at once.
    expect(await queue(turns, 'ws_d', served, 0)).toBe(true);
    expect(served).toEqual(['ws_a', 'ws_c', 'ws_d']);
  });
});

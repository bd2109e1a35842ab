import { describe, expect, it } from 'vitest';
import { FairTurns, type TakeOutcome } from './fairTurns.ts';

const LONG_WAIT_MS = 60_000;

/** Takes a turn for `name`'s tenant (the part before `:`) and records, once served, `name` in `served`. */
function queue(turns: FairTurns, name: string, served: string[], waitMs = LONG_WAIT_MS): Promise<TakeOutcome> {
  return turns.take(name.split(':')[0] ?? '', waitMs).then((outcome) => {
    if (outcome === 'taken') served.push(name);
    return outcome;
  });
}

/** Lets every callback of resolved promises run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('FairTurns', () => {
  it('holds at most its capacity at once', async () => {
    const turns = new FairTurns(2);
    const served: string[] = [];
    await Promise.all([queue(turns, 'ws_a', served), queue(turns, 'ws_b', served)]);
    const c = queue(turns, 'ws_c', served);
    await settle();
    expect(served).toEqual(['ws_a', 'ws_b']);
    turns.give('ws_a');
    expect(await c).toBe('taken');
    expect(served).toEqual(['ws_a', 'ws_b', 'ws_c']);
  });

  it("serves a tenant that waits before another tenant's next query, though that one queued first", async () => {
    const turns = new FairTurns(1);
    const served: string[] = [];
    // ws_a runs one query and queues two more; then ws_b queues one.
    await queue(turns, 'ws_a:1', served);
    const waiting = [queue(turns, 'ws_a:2', served), queue(turns, 'ws_a:3', served), queue(turns, 'ws_b:1', served)];
    for (const tenant of ['ws_a', 'ws_b', 'ws_a']) {
      turns.give(tenant);
      await settle();
    }
    await Promise.all(waiting);
    expect(served).toEqual(['ws_a:1', 'ws_b:1', 'ws_a:2', 'ws_a:3']);
  });

  it("goes round the waiting tenants, one turn each, and a tenant's own callers in arrival order", async () => {
    const turns = new FairTurns(1);
    const served: string[] = [];
    await queue(turns, 'holder', served);
    const waiting = ['ws_a:1', 'ws_a:2', 'ws_a:3', 'ws_b:1', 'ws_b:2', 'ws_c:1'].map((name) =>
      queue(turns, name, served),
    );
    let holder = 'holder';
    for (let i = 0; i < waiting.length; i++) {
      turns.give(holder);
      await settle();
      holder = (served.at(-1) ?? '').split(':')[0] ?? '';
    }
    await Promise.all(waiting);
    expect(served).toEqual(['holder', 'ws_a:1', 'ws_b:1', 'ws_c:1', 'ws_a:2', 'ws_b:2', 'ws_a:3']);
  });

  it('keeps a tenant to its limit: its further callers wait, and take one of its turns as it gives it back', async () => {
    const turns = new FairTurns(3, { perTenant: 2 });
    const served: string[] = [];
    await queue(turns, 'ws_a:1', served);
    await queue(turns, 'ws_a:2', served);
    const third = queue(turns, 'ws_a:3', served);
    await settle();
    // A turn is free, but not for ws_a: another tenant takes it at once.
    expect(await queue(turns, 'ws_b:1', served, 0)).toBe('taken');
    turns.give('ws_b');
    await settle();
    expect(served).toEqual(['ws_a:1', 'ws_a:2', 'ws_b:1']);
    turns.give('ws_a');
    expect(await third).toBe('taken');
  });

  it('says why a caller got no turn within its wait, and lets it go without taking one from anyone', async () => {
    const turns = new FairTurns(2, { perTenant: 1 });
    const served: string[] = [];
    await queue(turns, 'ws_a:1', served);
    await queue(turns, 'ws_b:1', served);
    expect(await queue(turns, 'ws_a:2', served, 10)).toBe('tenant at its limit');
    expect(await queue(turns, 'ws_c:1', served, 10)).toBe('busy');
    turns.give('ws_b');
    // The turn is free again: taken at once.
    expect(await queue(turns, 'ws_d:1', served, 0)).toBe('taken');
    expect(served).toEqual(['ws_a:1', 'ws_b:1', 'ws_d:1']);
  });

  it('refuses at once a caller past the callers a tenant may have waiting', async () => {
    const turns = new FairTurns(1, { waitingPerTenant: 2 });
    const served: string[] = [];
    await queue(turns, 'ws_a:1', served);
    const waiting = [queue(turns, 'ws_a:2', served), queue(turns, 'ws_a:3', served)];
    expect(await queue(turns, 'ws_a:4', served)).toBe('too many waiting');
    expect(turns.waiting).toBe(2);
    expect(await queue(turns, 'ws_b:1', served, 10)).toBe('busy');
    turns.give('ws_a');
    await settle();
    turns.give('ws_a');
    expect(await Promise.all(waiting)).toEqual(['taken', 'taken']);
  });
});

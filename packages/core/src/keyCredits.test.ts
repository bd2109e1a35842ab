import { describe, expect, it } from 'vitest';
import { type CreditsUpdate, type CreditsWrite, type KeyCreditsStore, updateKeyCredits } from './keyCredits.ts';
import { CREDITS_UPDATE_DETAILS, type CreditsState, MAX_CREDITS } from './keyLifecycle.ts';

const workspaceId = 'ws_1';
const now = Date.UTC(2026, 5, 15, 12);
const today = Date.UTC(2026, 5, 15);
const daily = { interval: 'daily' as const, amount: 100, refillDay: null };

/**
 * One key's credits in memory, written as the database writes them: the due refill first (raised to
 * the amount, never lowered), then the update, refused when an increment passes the ceiling.
 */
function memoryStore(credits: CreditsState | undefined) {
  let stored = credits;
  const writes: CreditsWrite[] = [];
  const store: KeyCreditsStore = {
    lockCredits: async (workspace, keyId) => (workspace === workspaceId && keyId === 'key_1' ? stored : undefined),
    writeCredits: async (_workspace, _keyId, write) => {
      writes.push(write);
      if (!stored) throw new Error('no key to write');
      const { update, refillAt } = write;
      const refill = refillAt === undefined ? undefined : stored.refill;
      const balance = refill ? Math.max(stored.remaining ?? 0, refill.amount) : (stored.remaining ?? 0);
      const lastRefillAt = refill ? (refillAt ?? null) : stored.lastRefillAt;
      if (update.operation === 'increment') {
        if (balance + update.value > write.ceiling) return undefined;
        stored = { ...stored, remaining: balance + update.value, lastRefillAt };
      } else if (update.operation === 'decrement') {
        stored = { ...stored, remaining: Math.max(balance - update.value, 0), lastRefillAt };
      } else if (update.value === null) {
        stored = { remaining: null, refill: null, lastRefillAt: null };
      } else if (update.value === undefined) {
        stored = { ...stored, remaining: null };
      } else {
        stored = { ...stored, remaining: update.value, lastRefillAt };
      }
      return stored;
    },
  };
  return { store, writes };
}

const update = (store: KeyCreditsStore, change: CreditsUpdate, keyId = 'key_1') =>
  updateKeyCredits(store, { workspaceId, keyId, update: change, now });

describe('updateKeyCredits', () => {
  it.each<[CreditsUpdate, number | null]>([
    [{ operation: 'set', value: 7 }, 7],
    [{ operation: 'increment', value: 5 }, 15],
    [{ operation: 'decrement', value: 3 }, 7],
    [{ operation: 'decrement', value: 30 }, 0],
  ])('%j on a balance of 10 leaves %j', async (change, remaining) => {
    const { store } = memoryStore({ remaining: 10, refill: null, lastRefillAt: null });
    expect(await update(store, change)).toEqual({ remaining, refill: null, lastRefillAt: null });
  });

  it('makes a key unlimited dropping its refill (null), or keeping it (no value)', async () => {
    const dropped = memoryStore({ remaining: 10, refill: daily, lastRefillAt: today });
    expect(await update(dropped.store, { operation: 'set', value: null })).toEqual({
      remaining: null,
      refill: null,
      lastRefillAt: null,
    });
    const kept = memoryStore({ remaining: 10, refill: daily, lastRefillAt: today });
    expect(await update(kept.store, { operation: 'set', value: undefined })).toEqual({
      remaining: null,
      refill: daily,
      lastRefillAt: today,
    });
  });

  describe('a refill whose boundary passed', () => {
    it('is applied before the change and recorded at its boundary', async () => {
      const { store, writes } = memoryStore({ remaining: 3, refill: daily, lastRefillAt: today - 86_400_000 });
      expect(await update(store, { operation: 'decrement', value: 1 })).toEqual({
        remaining: 99,
        refill: daily,
        lastRefillAt: today,
      });
      expect(writes).toEqual([{ update: { operation: 'decrement', value: 1 }, refillAt: today, ceiling: MAX_CREDITS }]);
    });

    it('is due for a key never refilled', async () => {
      const { writes, store } = memoryStore({ remaining: 3, refill: daily, lastRefillAt: null });
      await update(store, { operation: 'set', value: 5 });
      expect(writes[0]?.refillAt).toBe(today);
    });

    it('is not applied twice', async () => {
      const { writes, store } = memoryStore({ remaining: 3, refill: daily, lastRefillAt: today });
      await update(store, { operation: 'increment', value: 1 });
      expect(writes[0]?.refillAt).toBeUndefined();
    });

    it('is not applied when the key becomes unlimited', async () => {
      for (const value of [null, undefined]) {
        const { writes, store } = memoryStore({ remaining: 3, refill: daily, lastRefillAt: null });
        await update(store, { operation: 'set', value });
        expect(writes[0]?.refillAt).toBeUndefined();
      }
    });
  });

  it('answers 404 for a key the workspace does not have, writing nothing', async () => {
    const { store, writes } = memoryStore({ remaining: 10, refill: null, lastRefillAt: null });
    await expect(update(store, { operation: 'set', value: 1 }, 'key_other')).rejects.toMatchObject({
      status: 404,
      type: 'service/data/key_not_found',
      message: "The key 'key_other' was not found.",
    });
    expect(writes).toEqual([]);
  });

  it.each<CreditsUpdate>([
    { operation: 'increment', value: 1 },
    { operation: 'decrement', value: 1 },
  ])('answers 400 for %j on an unlimited key, writing nothing', async (change) => {
    const { store, writes } = memoryStore({ remaining: null, refill: null, lastRefillAt: null });
    await expect(update(store, change)).rejects.toMatchObject({
      status: 400,
      message: CREDITS_UPDATE_DETAILS.unlimited,
      fieldErrors: [{ location: 'body.operation', message: CREDITS_UPDATE_DETAILS.unlimited }],
    });
    expect(writes).toEqual([]);
  });

  it('sets a balance on an unlimited key', async () => {
    const { store } = memoryStore({ remaining: null, refill: null, lastRefillAt: null });
    expect((await update(store, { operation: 'set', value: 4 })).remaining).toBe(4);
  });

  it('answers 400 when the write refuses an increment past the largest balance, judged after the refill', async () => {
    const { store } = memoryStore({ remaining: 3, refill: daily, lastRefillAt: null });
    await expect(update(store, { operation: 'increment', value: MAX_CREDITS - 99 })).rejects.toMatchObject({
      status: 400,
      message: CREDITS_UPDATE_DETAILS.tooLarge,
      fieldErrors: [{ location: 'body.value', message: `would take the balance past ${MAX_CREDITS}` }],
    });
    expect((await update(store, { operation: 'increment', value: MAX_CREDITS - 100 })).remaining).toBe(MAX_CREDITS);
  });
});

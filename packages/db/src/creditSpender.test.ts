import { createChangeLog } from '@keyplane/caches';
import { bootstrapWorkspace, createKey, DEFAULT_WORKSPACE_LIMITS } from '@keyplane/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApi } from './apis.ts';
import { type CreditSpender, createCreditSpender, creditSpenderPoolConfig } from './creditSpender.ts';
import { keyCreationStore } from './keys.ts';
import { rows, sql } from './sql.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';
import { workspaceStore } from './workspaces.ts';

let database: TestDatabase;
let spender: CreditSpender;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  spender = createCreditSpender(database.url);
});
afterAll(async () => {
  await spender.close();
  await database.drop();
});

async function keyWithCredits(remaining: number | null): Promise<string> {
  const em = database.orm.em.fork();
  const { workspaceId } = await em.transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'credits' }));
  const apiId = await createApi(em, workspaceId, 'credits');
  const { keyId } = await em.transactional((tx) =>
    createKey(keyCreationStore(tx, createChangeLog(), DEFAULT_WORKSPACE_LIMITS), {
      workspaceId,
      apiId,
      credits: { remaining },
      enabled: true,
      recoverable: false,
    }),
  );
  return keyId;
}

/** The transaction that wrote the key row's current version: it changes whenever the row is rewritten. */
async function rowVersion(keyId: string): Promise<string | undefined> {
  const [row] = await rows(
    database.orm.em.fork(),
    sql<{ xmin: string }>`select xmin::text from keys where id = ${keyId}`,
  );
  return row?.xmin;
}

async function storedBalance(keyId: string): Promise<string | null | undefined> {
  const [row] = await rows(
    database.orm.em.fork(),
    sql<{ credits_remaining: string | null }>`select credits_remaining::text from keys where id = ${keyId}`,
  );
  return row?.credits_remaining;
}

describe('the credit spender', () => {
  it('judges concurrent spends of one key in arrival order against what the earlier ones left', async () => {
    const keyId = await keyWithCredits(10);
    const spends = await Promise.all([4, 4, 4, 2].map((cost) => spender.spend(keyId, cost, 0)));
    expect(spends).toEqual([
      { available: 10, remaining: 6 },
      { available: 6, remaining: 2 },
      { available: 2, remaining: null },
      { available: 2, remaining: 0 },
    ]);
    expect(await storedBalance(keyId)).toBe('0');
  });

  it('leaves the key row unwritten when a batch changes nothing: spends of 0, or refused ones', async () => {
    const keyId = await keyWithCredits(5);
    const before = await rowVersion(keyId);
    const reads = await Promise.all([0, 0, 6].map((cost) => spender.spend(keyId, cost, 0)));
    expect(reads).toEqual([
      { available: 5, remaining: 5 },
      { available: 5, remaining: 5 },
      { available: 5, remaining: null },
    ]);
    expect(await rowVersion(keyId)).toBe(before);
    expect(await spender.spend(keyId, 1, 0)).toEqual({ available: 5, remaining: 4 });
    expect(await rowVersion(keyId)).not.toBe(before);
  });

  it('stamps a due refill for a spend of 0 even when it leaves the balance as it was, so it is applied once', async () => {
    const keyId = await keyWithCredits(5);
    await rows(
      database.orm.em.fork(),
      sql`update keys set refill_interval = 'daily', refill_amount = 5, last_refill_at = now() where id = ${keyId}`,
    );
    const boundary = Date.now() + 60_000;
    expect(await spender.spend(keyId, 0, boundary)).toEqual({ available: 5, remaining: 5 });
    const [stamped] = await rows(
      database.orm.em.fork(),
      sql<{
        ms: number;
      }>`select (extract(epoch from last_refill_at) * 1000)::float8 as ms from keys where id = ${keyId}`,
    );
    expect(stamped?.ms).toBe(boundary);
    const refilled = await rowVersion(keyId);
    expect(await spender.spend(keyId, 0, boundary)).toEqual({ available: 5, remaining: 5 });
    expect(await rowVersion(keyId)).toBe(refilled);
  });

  it('answers null for a key without a credit limit and for an unknown key', async () => {
    const unlimited = await keyWithCredits(null);
    expect(await spender.spend(unlimited, 1, 0)).toEqual({ available: null, remaining: null });
    expect(await spender.spend('key_unknown', 1, 0)).toEqual({ available: null, remaining: null });
  });

  it('on close, settles the spends under way before closing its connections, and refuses later ones', async () => {
    const keyId = await keyWithCredits(100);
    const own = createCreditSpender(database.url);
    const pending = Array.from({ length: 30 }, () => own.spend(keyId, 1, 0));
    await own.close();
    expect((await Promise.all(pending)).map((spend) => spend.remaining)).toEqual(
      Array.from({ length: 30 }, (_, index) => 99 - index),
    );
    expect(await storedBalance(keyId)).toBe('70');
    await expect(own.spend(keyId, 1, 0)).rejects.toThrow();
    expect(await storedBalance(keyId)).toBe('70');
  });

  it('commits on connections of its own that do not wait for the log flush', async () => {
    const connection = new pg.Client(creditSpenderPoolConfig(database.url));
    await connection.connect();
    try {
      const { rows: settings } = await connection.query(
        `select current_setting('synchronous_commit') as commit, current_setting('application_name') as name`,
      );
      expect(settings).toEqual([{ commit: 'off', name: 'keyplane_credits' }]);
    } finally {
      await connection.end();
    }
  });
});

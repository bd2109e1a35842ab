import { randomBytes } from 'node:crypto';
import { type EventTable, rowsOf } from '../eventTable.ts';
import type { EventTransaction } from '../eventTransaction.ts';
import { createOrm, type Orm } from '../orm.ts';
import type { VerificationEvent } from '../verificationEvents.ts';
import { adminQuery, databaseUrlFor } from './databases.ts';

export { adminQuery } from './databases.ts';

export interface TestDatabase {
  url: string;
  orm: Orm;
  drop(): Promise<void>;
}

// What the global setup provides to every test file (`inject('databaseUrl')`).
declare module 'vitest' {
  interface ProvidedContext {
    /** A server URL (any database) on which test files may create databases. */
    databaseUrl: string;
    /** A migrated database that each test file clones. */
    templateDatabase: string;
  }
}

const TEMPLATE_IN_USE = /being accessed by other users/;

/**
 * A database of its own for one test file, cloned from the migrated template: real PostgreSQL,
 * isolated from every other file running in parallel.
 */
export async function createTestDatabase(serverUrl: string, templateDatabase: string): Promise<TestDatabase> {
  const name = `kp_test_${randomBytes(6).toString('hex')}`;
  // Concurrent clones of one template can collide; a short retry settles it.
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(serverUrl, `create database "${name}" template "${templateDatabase}"`);
      break;
    } catch (error) {
      if (attempt >= 50 || !(error instanceof Error) || !TEMPLATE_IN_USE.test(error.message)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    }
  }
  const url = databaseUrlFor(serverUrl, name);
  const orm = await createOrm(url, { poolSize: 5 });
  return {
    url,
    orm,
    async drop() {
      await orm.close();
      await adminQuery(serverUrl, `drop database if exists "${name}" with (force)`);
    },
  };
}

/** A database with nothing in it, not even the migrations' table: what a fresh install starts from. */
export async function createEmptyDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `kp_empty_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `create database "${name}"`);
  return {
    url: databaseUrlFor(serverUrl, name),
    drop: () => adminQuery(serverUrl, `drop database if exists "${name}" with (force)`),
  };
}

/** A VALID verification event of a test, with the fields it does not care about filled in. */
export function testVerificationEvent(
  fields: Pick<VerificationEvent, 'requestId' | 'workspaceId' | 'apiId' | 'keyId'> & Partial<VerificationEvent>,
): VerificationEvent {
  return {
    time: Date.now(),
    identityId: null,
    externalId: null,
    outcome: 'VALID',
    tags: [],
    spentCredits: 0,
    latencyMs: 1,
    ...fields,
  };
}

/** Writes events to their table in one batch, as a recorder's flush would: analytics seeded by a test. */
export function writeEvents<TEvent, TTotals>(
  tx: EventTransaction,
  table: EventTable<TEvent, TTotals>,
  events: readonly TEvent[],
): Promise<void> {
  return table.write(tx, rowsOf(table, events));
}

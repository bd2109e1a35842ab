import { randomBytes } from 'node:crypto';
import pg from 'pg';

export function databaseUrlFor(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs one statement on its own connection (CREATE/DROP DATABASE cannot run in a transaction). */
export async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const TEMPLATE_IN_USE = /being accessed by other users/;

/** A database of a test, and how to drop it once the test file is done. */
export interface ClonedDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A database of its own for one test file, cloned from the migrated template: real PostgreSQL,
 * isolated from every other file running in parallel.
 */
export async function cloneDatabase(serverUrl: string, templateDatabase: string): Promise<ClonedDatabase> {
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
  return {
    url: databaseUrlFor(serverUrl, name),
    drop: () => adminQuery(serverUrl, `drop database if exists "${name}" with (force)`),
  };
}

/** A database with nothing in it, not even the migrations' table: what a fresh install starts from. */
export async function createEmptyDatabase(serverUrl: string): Promise<ClonedDatabase> {
  const name = `kp_empty_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `create database "${name}"`);
  return {
    url: databaseUrlFor(serverUrl, name),
    drop: () => adminQuery(serverUrl, `drop database if exists "${name}" with (force)`),
  };
}

import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { loadEnv } from '@keyplane/config';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '@keyplane/embedded';
import type { TestProject } from 'vitest/node';
import { createOrm, migrate } from '../orm.ts';
import { adminQuery, databaseUrlFor } from './databases.ts';
import { createOwnedTempDir, sweepStaleTempDirs } from './tempDirs.ts';
// Brings the ProvidedContext augmentation that types project.provide below.
import './index.ts';

interface Shared {
  databaseUrl: string;
  templateDatabase: string;
  users: number;
  embedded?: EmbeddedDatabase;
  tempDir?: string;
}

// Vitest runs a project's globalSetup once per project; every project shares one database server.
const registry = globalThis as { keyplaneTestDatabase?: Promise<Shared> };

async function start(): Promise<Shared> {
  const env = loadEnv();
  let embedded: EmbeddedDatabase | undefined;
  let tempDir: string | undefined;
  let databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    await sweepStaleTempDirs(tmpdir());
    tempDir = await createOwnedTempDir(tmpdir());
    embedded = await startEmbeddedPostgres({ dataDir: tempDir, ephemeral: true });
    databaseUrl = embedded.url;
  }
  const templateDatabase = `kp_template_${process.pid}_${Date.now()}`;
  await adminQuery(databaseUrl, `create database "${templateDatabase}"`);
  const orm = await createOrm(databaseUrlFor(databaseUrl, templateDatabase), { poolSize: 1 });
  await migrate(orm);
  await orm.close();
  return { databaseUrl, templateDatabase, users: 0, embedded, tempDir };
}

export async function setup(project: TestProject) {
  registry.keyplaneTestDatabase ??= start();
  const shared = await registry.keyplaneTestDatabase;
  shared.users++;
  project.provide('databaseUrl', shared.databaseUrl);
  project.provide('templateDatabase', shared.templateDatabase);
}

/** The last project to finish drops the template and stops the embedded server. */
export async function teardown() {
  const shared = await registry.keyplaneTestDatabase;
  if (!shared || --shared.users > 0) return;
  await adminQuery(shared.databaseUrl, `drop database if exists "${shared.templateDatabase}" with (force)`);
  await shared.embedded?.stop();
  if (shared.tempDir) await rm(shared.tempDir, { recursive: true, force: true });
}

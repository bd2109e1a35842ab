import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { loadEnv } from '@keyplane/config';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '@keyplane/embedded';
import type { TestProject } from 'vitest/node';
import { adminQuery, databaseUrlFor } from './databases.ts';
import { createOwnedTempDir, sweepStaleTempDirs } from './tempDirs.ts';
// Brings the ProvidedContext augmentation that types project.provide below.
import './provided.ts';

interface Shared {
  databaseUrl: string;
  templateDatabase: string;
  users: number;
  embedded?: EmbeddedDatabase;
  tempDir?: string;
}

/** Brings a new, empty database to the schema every test file starts from. */
export type MigrateTemplate = (databaseUrl: string) => Promise<void>;

// Vitest runs a project's globalSetup once per project; every project shares one database server.
const registry = globalThis as { keyplaneTestDatabase?: Promise<Shared> };

async function start(migrateTemplate: MigrateTemplate): Promise<Shared> {
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
  await migrateTemplate(databaseUrlFor(databaseUrl, templateDatabase));
  return { databaseUrl, templateDatabase, users: 0, embedded, tempDir };
}

/**
 * A vitest global setup: the database server of the run (`DATABASE_URL`, or an embedded one
 * started for it), and a template database migrated once per run, which every test file clones
 * (`cloneDatabase`). The server and the template are shared by all projects of the run.
 */
export function databaseSetup(migrateTemplate: MigrateTemplate) {
  return {
    async setup(project: TestProject) {
      registry.keyplaneTestDatabase ??= start(migrateTemplate);
      const shared = await registry.keyplaneTestDatabase;
      shared.users++;
      project.provide('databaseUrl', shared.databaseUrl);
      project.provide('templateDatabase', shared.templateDatabase);
    },
    /** The last project to finish drops the template and stops the embedded server. */
    async teardown() {
      const shared = await registry.keyplaneTestDatabase;
      if (!shared || --shared.users > 0) return;
      await adminQuery(shared.databaseUrl, `drop database if exists "${shared.templateDatabase}" with (force)`);
      await shared.embedded?.stop();
      if (shared.tempDir) await rm(shared.tempDir, { recursive: true, force: true });
    },
  };
}

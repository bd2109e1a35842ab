import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnv } from '@keyplane/config';
import { bootstrapWorkspace, issueRootKey } from '@keyplane/core';
import { type EntityManager, type Orm, rootKeyStore, workspaceStore } from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import type { SsoConfig } from '../src/http/sso.ts';
import { type Logger, silentLogger } from '../src/log.ts';
import { createMetrics } from '../src/metrics.ts';
import { type RunningServices, startServices } from '../src/services.ts';
import { JsonText, type Reply, type ReplyOf, serveHttp, type TestServer } from './httpServer.ts';
import type { InputOf, ListItemOf, ListProcedurePath, ProcedurePath } from './procedures.ts';

export { callAt, type ErrorEnvelope, JsonText, type Reply, type ReplyOf, replyOf } from './httpServer.ts';

export const ERRORS_BASE_URL = 'https://errors.test';
export const MAX_BODY_BYTES = 64 * 1024;
/** A fixed master key for tests (64 hex characters = 32 bytes). */
export const TEST_MASTER_KEY = Buffer.from('11'.repeat(32), 'hex');
/** Redis when the environment has one (CI does), else the in-process limiter. */
export const REDIS_URL = loadEnv().REDIS_URL;

export interface TestWorkspace {
  workspaceId: string;
  /** A root key holding every permission. */
  rootKey: string;
  /** Another root key of this workspace with exactly these permissions. */
  rootKeyWith(permissions: string[], options?: { expiresAt?: Date }): Promise<{ rootKeyId: string; rootKey: string }>;
}

/** The test server's settings; a test file may change what its server is started with. */
export interface ServerOptions {
  vaultMasterKey?: Buffer;
  logger?: Logger;
  /** Connections kept for analytics queries (the server's default: 1). */
  analyticsConnections?: number;
  /** Webhook endpoints one workspace may have (the server's default: LIMIT_WEBHOOK_ENDPOINTS_PER_WORKSPACE's). */
  webhookEndpointsPerWorkspace?: number;
  /** PUBLIC_URL; omitted: links on the request's origin. */
  publicUrl?: string;
  /** Single sign-on (OIDC_*); omitted: not offered. */
  sso?: SsoConfig;
  /** People's accounts: PUBLIC_URL, SMTP_URL and SMTP_FROM (a getter, for a mail server the file starts first). */
  team?: () => { publicUrl?: string; smtp?: { url: string; from: string } };
}

/**
 * Per test file: a database of its own (real PostgreSQL), the services on it, and the production
 * HTTP server on a loopback port, called over a real socket.
 */
export function useApi(options: ServerOptions = { vaultMasterKey: TEST_MASTER_KEY }) {
  let database: TestDatabase | undefined;
  let spoolDir: string | undefined;
  let running: RunningServices | undefined;
  let server: TestServer | undefined;
  const ready = () => {
    if (!database || !spoolDir || !running || !server) throw new Error('useApi() is used before its beforeAll ran');
    return { database, spoolDir, running, server };
  };

  beforeAll(async () => {
    database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
    spoolDir = await mkdtemp(join(tmpdir(), 'keyplane-spool-'));
    running = await startServices({
      orm: database.orm,
      databaseUrl: database.url,
      redisUrl: REDIS_URL,
      logger: silentLogger,
      eventSpoolDir: spoolDir,
      analyticsConnections: options.analyticsConnections,
      webhooks: { allowPrivate: false, endpointsPerWorkspace: options.webhookEndpointsPerWorkspace },
      team: { publicUrl: options.publicUrl, sso: options.sso !== undefined, ...options.team?.() },
    });
    server = await serveHttp({
      orm: database.orm,
      logger: options.logger ?? silentLogger,
      errorsBaseUrl: ERRORS_BASE_URL,
      maxBodyBytes: MAX_BODY_BYTES,
      vaultMasterKey: options.vaultMasterKey,
      services: running.services,
      readiness: running.readiness,
      metrics: createMetrics({ orm: database.orm, services: running.services, counts: running.counts }),
      metricsAccess: {},
      sso: options.sso,
    });
  });
  afterAll(async () => {
    await server?.close();
    await running?.stop();
    await database?.drop();
    if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
  });

  return {
    get orm(): Orm {
      return ready().database.orm;
    },
    /** An entity manager of its own on the file's database, for reading what a call stored. */
    em(): EntityManager {
      return ready().database.orm.em.fork();
    },
    get services() {
      return ready().running.services;
    },
    get readiness() {
      return ready().running.readiness;
    },
    /** The test file's database, for connections of its own (another node's listener). */
    get databaseUrl(): string {
      return ready().database.url;
    },
    /** The event spool directory of this test file's server (a temporary one). */
    get spoolDir() {
      return ready().spoolDir;
    },
    /** The server's base URL, for clients that need one (`http://127.0.0.1:<port>`). */
    get url(): string {
      return ready().server.url;
    },
    /** fetch, to a path of the test server. */
    fetch(path: string, init?: RequestInit): Promise<Response> {
      return ready().server.fetch(path, init);
    },
    request<TData = Record<string, unknown>>(path: string, init: RequestInit): Promise<Reply<TData>> {
      return ready().server.request<TData>(path, init);
    },
    /**
     * POST /v2/<procedure> with any body, untyped: for what a procedure's type does not allow (the
     * malformed bodies of 400 tests, paths that are no procedure). Everything else uses `call`.
     */
    post<TData = Record<string, unknown>>(procedure: string, body: unknown, rootKey?: string): Promise<Reply<TData>> {
      return ready().server.post<TData>(procedure, body, rootKey);
    },
    /** POST /v2/<procedure> with the procedure's input; its 200 body typed by the router. */
    call<P extends ProcedurePath>(procedure: P, input: InputOf<P>, rootKey?: string): Promise<ReplyOf<P>> {
      return ready().server.call(procedure, input, rootKey);
    },
    async workspace(options: { vault?: boolean } = {}): Promise<TestWorkspace> {
      const orm = ready().database.orm;
      const created = await orm.em.fork().transactional((tx) =>
        bootstrapWorkspace(workspaceStore(tx), {
          name: 'test',
          masterKey: options.vault ? TEST_MASTER_KEY : undefined,
        }),
      );
      return {
        workspaceId: created.workspaceId,
        rootKey: created.rootKey,
        rootKeyWith: (permissions, keyOptions = {}) =>
          orm.em
            .fork()
            .transactional((tx) =>
              issueRootKey(rootKeyStore(tx), { workspaceId: created.workspaceId, permissions, ...keyOptions }),
            ),
      };
    },
  };
}

export type Api = ReturnType<typeof useApi>;

/** Creates an API (optionally with settings) and returns its id. */
export async function createTestApi(
  api: Api,
  rootKey: string,
  settings: Omit<InputOf<'apis.updateApi'>, 'apiId'> = {},
) {
  const created = await api.call('apis.createApi', { name: 'test-api' }, rootKey);
  if (created.status !== 200) throw new Error(`createApi failed: ${JSON.stringify(created.body)}`);
  const apiId = created.body.data.apiId;
  if (Object.keys(settings).length > 0) {
    const updated = await api.call('apis.updateApi', { apiId, ...settings }, rootKey);
    if (updated.status !== 200) throw new Error(`updateApi failed: ${JSON.stringify(updated.body)}`);
  }
  return apiId;
}

/** Creates a key through the public procedure and returns it, failing the test on any error. */
export async function createTestKey(api: Api, rootKey: string, body: InputOf<'keys.createKey'>) {
  const reply = await api.call('keys.createKey', body, rootKey);
  if (reply.status !== 200) throw new Error(`createKey failed: ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Every item of a list procedure from its first page on, calling `between` after each page. */
export async function walkList<P extends ListProcedurePath>(
  api: Api,
  procedure: P,
  rootKey: string,
  body: InputOf<P>,
  between: () => Promise<void> = async () => {},
): Promise<ListItemOf<P>[]> {
  const seen: ListItemOf<P>[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const reply = await api.call(procedure, { ...body, ...(cursor ? { cursor } : {}) }, rootKey);
    expect(reply.status).toBe(200);
    // TypeScript does not resolve a reply's type for a procedure still generic here.
    const { data, pagination } = reply.body as unknown as {
      data: ListItemOf<P>[];
      pagination: { cursor?: string; hasMore: boolean };
    };
    seen.push(...data);
    if (!pagination.hasMore) {
      expect(pagination.cursor).toBeUndefined();
      return seen;
    }
    cursor = pagination.cursor;
    expect(cursor).toEqual(expect.any(String));
    await between();
  }
  throw new Error('the walk did not end');
}

/**
 * `fields` and a `meta` nesting `levels` objects deep (itself included), as JSON text:
 * JSON.stringify of thousands of levels would overflow the test's own stack before the server saw it.
 */
export function withNestedMeta(fields: Record<string, unknown>, levels: number): JsonText {
  const meta = `${'{"inner":'.repeat(levels - 1)}{"leaf":true}${'}'.repeat(levels - 1)}`;
  return new JsonText(JSON.stringify({ ...fields, meta: null }).replace('"meta":null', `"meta":${meta}`));
}

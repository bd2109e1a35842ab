import { loadEnv } from '@keyplane/config';
import { bootstrapWorkspace, createRootKey, type Orm } from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { type App, createHttp } from '../src/http/app.ts';
import { silentLogger } from '../src/log.ts';
import { type RunningServices, startServices } from '../src/services.ts';

export const ERRORS_BASE_URL = 'https://errors.test';
export const MAX_BODY_BYTES = 64 * 1024;
/** A fixed master key for tests (64 hex characters = 32 bytes). */
export const TEST_MASTER_KEY = Buffer.from('11'.repeat(32), 'hex');
/** Redis when the environment has one (CI does), else the in-process limiter. */
export const REDIS_URL = loadEnv().REDIS_URL;

export interface Reply<TData = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: {
    meta: { requestId: string };
    data: TData;
    error: { title: string; detail: string; status: number; type: string; errors?: FieldErrorBody[] };
  };
}

/** A response as tests read it: status, headers and the parsed JSON body. */
export async function replyOf<TData>(response: Response): Promise<Reply<TData>> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

interface FieldErrorBody {
  location: string;
  message: string;
  fix?: string;
}

export interface TestWorkspace {
  workspaceId: string;
  /** A root key holding every permission. */
  rootKey: string;
  /** Another root key of this workspace with exactly these permissions. */
  rootKeyWith(permissions: string[], options?: { expiresAt?: Date }): Promise<{ rootKeyId: string; rootKey: string }>;
}

/**
 * Per test file: a database of its own (real PostgreSQL) and the HTTP app on top of it, called
 * in-process through `app.request`.
 */
export function useApi(options: { vaultMasterKey?: Buffer } = { vaultMasterKey: TEST_MASTER_KEY }) {
  let database: TestDatabase | undefined;
  let running: RunningServices | undefined;
  let app: App | undefined;
  let listener: ReturnType<typeof createHttp>['listener'] | undefined;
  const ready = () => {
    if (!database || !app || !running || !listener) throw new Error('useApi() is used before its beforeAll ran');
    return { database, app, running, listener };
  };

  beforeAll(async () => {
    database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
    running = await startServices({
      orm: database.orm,
      databaseUrl: database.url,
      redisUrl: REDIS_URL,
      logger: silentLogger,
    });
    ({ app, listener } = createHttp({
      orm: database.orm,
      logger: silentLogger,
      errorsBaseUrl: ERRORS_BASE_URL,
      maxBodyBytes: MAX_BODY_BYTES,
      vaultMasterKey: options.vaultMasterKey,
      services: running.services,
    }));
  });
  afterAll(async () => {
    await running?.stop();
    await database?.drop();
  });

  async function request<TData>(path: string, init: RequestInit): Promise<Reply<TData>> {
    const response = await ready().app.request(path, init);
    return replyOf<TData>(response);
  }

  return {
    get orm(): Orm {
      return ready().database.orm;
    },
    get app(): App {
      return ready().app;
    },
    /** The Node request listener the production server runs. */
    get listener() {
      return ready().listener;
    },
    get services() {
      return ready().running.services;
    },
    request,
    /** POST /v2/<procedure> with a JSON body and, when given, a root key. */
    post<TData = Record<string, unknown>>(procedure: string, body: unknown, rootKey?: string): Promise<Reply<TData>> {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (rootKey !== undefined) headers.Authorization = `Bearer ${rootKey}`;
      return request<TData>(`/v2/${procedure}`, { method: 'POST', headers, body: JSON.stringify(body) });
    },
    async workspace(options: { vault?: boolean } = {}): Promise<TestWorkspace> {
      const orm = ready().database.orm;
      const created = await bootstrapWorkspace(orm.em.fork(), {
        name: 'test',
        masterKey: options.vault ? TEST_MASTER_KEY : undefined,
      });
      return {
        workspaceId: created.workspaceId,
        rootKey: created.rootKey,
        rootKeyWith: (permissions, keyOptions = {}) =>
          createRootKey(orm.em.fork(), { workspaceId: created.workspaceId, permissions, ...keyOptions }),
      };
    },
  };
}

export type Api = ReturnType<typeof useApi>;

/** Creates an API (optionally with settings) and returns its id. */
export async function createTestApi(api: Api, rootKey: string, settings: Record<string, unknown> = {}) {
  const created = await api.post<{ apiId: string }>('apis.createApi', { name: 'test-api' }, rootKey);
  if (created.status !== 200) throw new Error(`createApi failed: ${JSON.stringify(created.body)}`);
  const apiId = created.body.data.apiId;
  if (Object.keys(settings).length > 0) {
    const updated = await api.post('apis.updateApi', { apiId, ...settings }, rootKey);
    if (updated.status !== 200) throw new Error(`updateApi failed: ${JSON.stringify(updated.body)}`);
  }
  return apiId;
}

/** Creates a key through the public procedure and returns it, failing the test on any error. */
export async function createTestKey(api: Api, rootKey: string, body: Record<string, unknown>) {
  const reply = await api.post<{ keyId: string; key: string }>('keys.createKey', body, rootKey);
  if (reply.status !== 200) throw new Error(`createKey failed: ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Every item of a list procedure from its first page on, calling `between` after each page. */
export async function walkList<TItem>(
  api: Api,
  procedure: string,
  rootKey: string,
  body: Record<string, unknown>,
  between: () => Promise<void> = async () => {},
): Promise<TItem[]> {
  const seen: TItem[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const reply = await api.post(procedure, { ...body, ...(cursor ? { cursor } : {}) }, rootKey);
    expect(reply.status).toBe(200);
    const { data, pagination } = reply.body as unknown as {
      data: TItem[];
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

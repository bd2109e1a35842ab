import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';

// `npm run dev`: the dashboard from Vite's dev server, which passes /trpc on to the API on its PORT.
let database: TestDatabase;
let server: SpawnedServer;
let vite: ViteDevServer;
let origin: string;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  server = await spawnServer({ DATABASE_URL: database.url });
  vi.stubEnv('PORT', new URL(server.url).port);
  vite = await createServer({
    root: fileURLToPath(new URL('..', import.meta.url)),
    server: { port: 0 },
    logLevel: 'silent',
  });
  await vite.listen();
  origin = new URL(vite.resolvedUrls?.local[0] ?? '').origin;
});

afterAll(async () => {
  await vite?.close();
  vi.unstubAllEnvs();
  await server?.stop();
  await database?.drop();
});

/** A call as the dashboard's page makes it: to the origin it was loaded from, with the dashboard header. */
function dashboardCall(procedure: string, options: { input?: unknown; cookie?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { origin, 'x-keyplane-dashboard': '1', 'content-type': 'application/json' };
  if (options.cookie) headers.cookie = options.cookie;
  return fetch(`${origin}/trpc/${procedure}`, {
    method: options.input === undefined ? 'GET' : 'POST',
    headers,
    body: options.input === undefined ? undefined : JSON.stringify(options.input),
  });
}

describe('the dashboard on the Vite dev server', () => {
  it('serves the app at /dashboard/ with the hot-reload client', async () => {
    const page = await fetch(`${origin}/dashboard/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/dashboard/@vite/client');
    expect(html).toContain('/dashboard/src/main.tsx');
  });

  it('signs in through the proxy, and the session cookie then works on the dev server', async () => {
    const signIn = await dashboardCall('dashboard.signIn', { input: { rootKey: server.rootKey } });
    expect(signIn.status).toBe(200);
    const [cookie] = signIn.headers.getSetCookie();
    expect(cookie).toMatch(/^keyplane_session=[^;]+; .*Path=\/; HttpOnly; SameSite=Strict$/);

    const session = await dashboardCall('dashboard.session', { cookie: cookie?.split(';')[0] });
    expect(session.status).toBe(200);
    const { result } = (await session.json()) as { result: { data: { workspaceId: string } } };
    expect(result.data.workspaceId).toMatch(/^ws_/);
  });
});

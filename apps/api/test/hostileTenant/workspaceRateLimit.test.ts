import { createChangeLog } from '@keyplane/caches';
import { bootstrapWorkspace } from '@keyplane/core';
import { createOrm, setWorkspaceApiRateLimit, workspaceStore } from '@keyplane/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from '../httpServer.ts';
import { callInternal, signIn } from '../internal.ts';
import { type ServerProcess, startServerProcess } from '../serverProcess.ts';

// A workspace held to an API rate limit looks for a way of calling that the limit does not count:
// /v2, /trpc with its root key, the dashboard's session cookie. Every one counts against the same
// minute (docs/contract.md#workspace-rate-limit), on a real server process.

const PER_MINUTE = 5;

let server: ServerProcess;
let rootKey: string;

beforeAll(async () => {
  server = await startServerProcess({}, async (databaseUrl) => {
    const orm = await createOrm(databaseUrl);
    try {
      const workspace = await orm.em
        .fork()
        .transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'limited', masterKey: undefined }));
      rootKey = workspace.rootKey;
      await setWorkspaceApiRateLimit(orm.em.fork(), createChangeLog(), workspace.workspaceId, PER_MINUTE);
    } finally {
      await orm.close();
    }
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('every way of calling counts against the one limit', () => {
  it('/v2, /trpc with the root key and a dashboard session together get PER_MINUTE answers, then 429', async () => {
    const client = httpClient(server.url);
    // Signing in is throttled on its own and is not an API call.
    const session = await signIn(client, rootKey);
    const ways = [
      async () => (await client.post('apis.listKeys', { apiId: 'api_none' }, rootKey)).status,
      async () => (await callInternal(client, 'apis.listApis', {}, { rootKey })).status,
      async () => (await callInternal(client, 'apis.listApis', {}, { session })).status,
    ];
    const statuses: number[] = [];
    for (let call = 0; call < 4 * ways.length; call++)
      statuses.push(await (ways[call % ways.length] as () => Promise<number>)());
    expect(statuses.filter((status) => status !== 429)).toHaveLength(PER_MINUTE);
    expect(statuses.slice(PER_MINUTE).every((status) => status === 429)).toBe(true);
  });
});

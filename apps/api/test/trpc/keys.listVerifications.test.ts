import { beforeAll, describe, expect, it } from 'vitest';
import { keyOfAnotherWorkspace, useWorkspaceWithApi } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import { callInternal, callProcedure } from '../internal.ts';

// Internal: the key page's last verifications, read from the raw events.
const api = useApi();
const owner = useWorkspaceWithApi(api);
let keyId: string;
let key: string;

const list = (input: { keyId: string; limit?: number }, rootKey = owner.workspace.rootKey) =>
  callProcedure(api, 'keys.listVerifications', input, { rootKey });

async function verify(body: { key: string; tags?: string[] }, rootKey = owner.workspace.rootKey) {
  const reply = await api.call('keys.verifyKey', body, rootKey);
  if (reply.status !== 200) throw new Error(`verifyKey: ${JSON.stringify(reply.body)}`);
}

beforeAll(async () => {
  ({ keyId, key } = await owner.newKey({ credits: { remaining: 1 } }));
  // VALID (spends the one credit), then USAGE_EXCEEDED twice, the last one tagged.
  await verify({ key, tags: ['path=/v1/a'] });
  await verify({ key });
  await verify({ key, tags: ['path=/v1/b', 'region=eu'] });
  await api.services.verifications.flush();
});

describe('200', () => {
  it("answers the key's verifications newest first, with outcome, tags and credits", async () => {
    const reply = await list({ keyId });
    expect(reply.status).toBe(200);
    expect(reply.data.data.map(({ outcome, tags, spentCredits }) => ({ outcome, tags, spentCredits }))).toEqual([
      { outcome: 'USAGE_EXCEEDED', tags: ['path=/v1/b', 'region=eu'], spentCredits: 0 },
      { outcome: 'USAGE_EXCEEDED', tags: [], spentCredits: 0 },
      { outcome: 'VALID', tags: ['path=/v1/a'], spentCredits: 1 },
    ]);
    const times = reply.data.data.map((event) => event.time);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(reply.data.data[0]?.requestId).toMatch(/^req_/);
  });

  it('answers at most `limit` of them', async () => {
    const reply = await list({ keyId, limit: 1 });
    expect(reply.data.data.map((event) => event.tags)).toEqual([['path=/v1/b', 'region=eu']]);
  });

  it('answers an empty list for a key never verified', async () => {
    const fresh = await owner.newKey();
    expect((await list({ keyId: fresh.keyId })).data).toEqual({ data: [] });
  });

  it('with read_key and read_analytics granted on that API only', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith([
      `api.${owner.apiId}.read_key`,
      `api.${owner.apiId}.read_analytics`,
    ]);
    expect((await list({ keyId }, rootKey)).data.data).toHaveLength(3);
  });
});

describe('400', () => {
  it('without a keyId, or with a limit out of range', async () => {
    const rootKey = owner.workspace.rootKey;
    expect((await callInternal(api, 'keys.listVerifications', {}, { rootKey })).status).toBe(400);
    const tooMany = await callInternal(api, 'keys.listVerifications', { keyId, limit: 101 }, { rootKey });
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.error)).toContain('limit');
  });
});

describe('403', () => {
  it('without read_analytics on the key API, naming it', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith([`api.${owner.apiId}.read_key`]);
    const reply = await list({ keyId }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toContain(`api.${owner.apiId}.read_analytics`);
  });

  it('without read_key on the key API', async () => {
    const { rootKey } = await owner.workspace.rootKeyWith(['api.*.read_analytics']);
    expect((await list({ keyId }, rootKey)).status).toBe(403);
  });
});

describe('404', () => {
  it('for an unknown or deleted key', async () => {
    const doomed = await owner.newKey();
    await verify({ key: doomed.key });
    await api.post('keys.deleteKey', { keyId: doomed.keyId }, owner.workspace.rootKey);
    expect((await list({ keyId: doomed.keyId })).status).toBe(404);
    expect((await list({ keyId: 'key_00000000000000000000000000000000' })).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace's key does not exist, and its verifications are not listed", async () => {
    const other = await keyOfAnotherWorkspace(api);
    await verify({ key: other.key, tags: ['secret=other'] }, other.workspace.rootKey);
    await api.services.verifications.flush();
    const reply = await list({ keyId: other.keyId });
    expect(reply.status).toBe(404);
    expect(JSON.stringify(reply)).not.toContain('secret=other');
    // Its owner sees them.
    const own = await list({ keyId: other.keyId }, other.workspace.rootKey);
    expect(own.data.data.map((event) => event.tags)).toEqual([['secret=other']]);
  });
});

import { createChangeLog } from '@keyplane/caches';
import { revokeRootKey } from '@keyplane/core';
import { rootKeyChangeStore } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi, ERRORS_BASE_URL } from '../harness.ts';

const { api, workspace } = useApiWithWorkspace();
let apiId: string;

beforeAll(async () => {
  apiId = await createTestApi(api, workspace.rootKey);
});

const getApiWith = (headers: Record<string, string>) =>
  api.request('/v2/apis.getApi', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ apiId }),
  });

// Every procedure's 401s for a missing, malformed, unknown, revoked or expired root key: authentication.test.ts.
describe('401', () => {
  const expectUnauthorized = (reply: Awaited<ReturnType<typeof getApiWith>>, detail: RegExp) => {
    expect(reply.status).toBe(401);
    expect(reply.body.error).toMatchObject({
      title: 'Unauthorized',
      status: 401,
      type: `${ERRORS_BASE_URL}/service/authentication/unauthorized`,
    });
    expect(reply.body.error.detail).toMatch(detail);
  };

  it('when the root key was revoked elsewhere (as by the CLI), within the one-second bound', async () => {
    const { rootKeyId, rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    // Warm this node's cache, then revoke on another connection: only NOTIFY can tell this node.
    expect((await getApiWith({ Authorization: `Bearer ${rootKey}` })).status).toBe(200);
    await api.orm.em
      .fork()
      .transactional((tx) => revokeRootKey(rootKeyChangeStore(tx, createChangeLog()), { rootKeyId }));
    await expect
      .poll(async () => (await getApiWith({ Authorization: `Bearer ${rootKey}` })).status, {
        timeout: 1000,
        interval: 5,
      })
      .toBe(401);
    expectUnauthorized(await getApiWith({ Authorization: `Bearer ${rootKey}` }), /revoked/);
  });

  it('accepts a root key that expires in the future', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api'], { expiresAt: new Date(Date.now() + 60_000) });
    expect((await getApiWith({ Authorization: `Bearer ${rootKey}` })).status).toBe(200);
  });

  it('is checked before the body is looked at for permissions', async () => {
    const reply = await api.post('keys.createKey', { apiId: 'api_unknown' }, 'kproot_nope');
    expect(reply.status).toBe(401);
  });
});

describe('403', () => {
  it('names the missing permission', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.create_key']);
    const reply = await api.post('apis.getApi', { apiId }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error).toMatchObject({
      title: 'Forbidden',
      status: 403,
      type: `${ERRORS_BASE_URL}/service/authorization/forbidden`,
    });
    expect(reply.body.error.detail).toBe(`Missing permission: 'api.${apiId}.read_api'.`);
  });

  it('names every missing permission when several are needed', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    const reply = await api.post('keys.createKey', { apiId, recoverable: true }, rootKey);
    expect(reply.status).toBe(403);
    expect(reply.body.error.detail).toContain(`'api.${apiId}.create_key'`);
    expect(reply.body.error.detail).toContain(`'api.${apiId}.encrypt_key'`);
  });

  it('is not satisfied by a grant for another API', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.api_someother.read_api']);
    expect((await api.post('apis.getApi', { apiId }, rootKey)).status).toBe(403);
  });

  it('is not satisfied by a grant of another action on the same API', async () => {
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.delete_key`]);
    expect((await api.post('apis.getApi', { apiId }, rootKey)).status).toBe(403);
  });

  it('does not let an API-scoped grant create APIs', async () => {
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.create_api`]);
    expect((await api.post('apis.createApi', { name: 'scoped' }, rootKey)).status).toBe(403);
  });
});

describe('grants that satisfy a check', () => {
  it.each([['api.*.read_api'], ['apis.*.read_api']])('the wildcard grant %s', async (grant) => {
    const { rootKey } = await workspace.rootKeyWith([grant]);
    expect((await api.post('apis.getApi', { apiId }, rootKey)).status).toBe(200);
  });

  it.each(['api', 'apis'])('the exact grant for the API, spelled %s', async (type) => {
    const { rootKey } = await workspace.rootKeyWith([`${type}.${apiId}.read_api`]);
    expect((await api.post('apis.getApi', { apiId }, rootKey)).status).toBe(200);
  });
});

import { hashKey } from '@keyplane/core';
import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectInternalMissingPermissions } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure, signIn } from '../internal.ts';
import type { InputOf } from '../procedures.ts';

// Internal: the dashboard's root-key management, at /trpc only.
const { api, workspace } = useApiWithWorkspace();

const create = (input: InputOf<'rootKeys.createRootKey'>, rootKey = workspace.rootKey) =>
  callProcedure(api, 'rootKeys.createRootKey', input, { rootKey });

const storedRootKeys = () => rows(api.em(), sql<{ id: string; hash: string }>`select id, hash from root_keys`);

describe('200', () => {
  it('creates a working root key with exactly the given permissions, storing only its hash', async () => {
    const expires = Date.now() + 3_600_000;
    const reply = await create({ name: 'ci', permissions: ['api.*.create_api', 'api.*.read_api'], expires });
    expect(reply.status).toBe(200);
    const { rootKeyId, key } = reply.data;
    expect(key).toMatch(/^kproot_/);
    const stored = (await storedRootKeys()).find((row) => row.id === rootKeyId);
    expect(stored?.hash).toBe(hashKey(key));
    expect(JSON.stringify(await storedRootKeys())).not.toContain(key);
    expect((await api.post('apis.createApi', { name: 'made-by-new-key' }, key)).status).toBe(200);
    expect((await api.post('apis.deleteApi', { apiId: 'api_x' }, key)).status).toBe(403);
    const listed = await callProcedure(api, 'rootKeys.listRootKeys', undefined, {
      rootKey: workspace.rootKey,
    });
    expect(listed.data.data.find((rootKey) => rootKey.rootKeyId === rootKeyId)).toMatchObject({
      name: 'ci',
      permissions: ['api.*.create_api', 'api.*.read_api'],
      expiresAt: expires,
      revokedAt: null,
    });
  });

  it('grants one API only when asked to', async () => {
    const { apiId } = (await api.call('apis.createApi', { name: 'one' }, workspace.rootKey)).body.data;
    const { key } = (await create({ permissions: [`api.${apiId}.read_api`] })).data;
    expect((await api.post('apis.getApi', { apiId }, key)).status).toBe(200);
    const other = (await api.call('apis.createApi', { name: 'two' }, workspace.rootKey)).body.data;
    expect((await api.post('apis.getApi', { apiId: other.apiId }, key)).status).toBe(403);
  });

  it('by a key with an expiry, of a key expiring no later than it', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const { rootKey } = await workspace.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.read_api'], { expiresAt });
    const reply = await create({ permissions: ['api.*.read_api'], expires: expiresAt.getTime() }, rootKey);
    expect(reply.status).toBe(200);
  });
});

describe('400', () => {
  it.each([
    [{ permissions: [] }, 'permissions'],
    [{ permissions: ['api.*.fly'] }, "'api.*.fly' is not a root-key permission"],
    [{ permissions: ['api.*.read_api', 'not a permission'] }, "'not a permission' is not a root-key permission"],
    [{ permissions: ['nothing.*.read'] }, "'nothing.*.read' is not a root-key permission"],
    // Named like properties every object has: a resource type or an action like any other unknown one.
    [{ permissions: ['constructor.*.read_api'] }, "'constructor.*.read_api' is not a root-key permission"],
    [{ permissions: ['__proto__.*.read_api'] }, "'__proto__.*.read_api' is not a root-key permission"],
    [{ permissions: ['hasOwnProperty.*.read_api'] }, "'hasOwnProperty.*.read_api' is not a root-key permission"],
    [{ permissions: ['api.*.toString'] }, "'api.*.toString' is not a root-key permission"],
    [{ permissions: ['api.*.read_api'], expires: Date.now() - 1000 }, '`expires` must be in the future.'],
    [{ permissions: ['api.*.read_api'], extra: 1 }, 'extra'],
  ])('%j: %s', async (input, problem) => {
    const before = (await storedRootKeys()).length;
    const reply = await callInternal(api, 'rootKeys.createRootKey', input, { rootKey: workspace.rootKey });
    expect(reply.status).toBe(400);
    expect(reply.error?.data.code).toBe('BAD_REQUEST');
    expect(reply.error?.message).toContain(problem);
    expect((await storedRootKeys()).length).toBe(before);
  });
});

describe('403', () => {
  it('without workspace.*.manage_root_keys', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    expectInternalMissingPermissions(
      await create({ permissions: ['api.*.read_api'] }, rootKey),
      'workspace.*.manage_root_keys',
    );
  });

  it('granting a permission the creating key does not hold (no escalation)', async () => {
    const { rootKey } = await workspace.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.read_api']);
    const before = (await storedRootKeys()).length;
    const reply = await create({ permissions: ['api.*.read_api', 'api.*.delete_api'] }, rootKey);
    expectInternalMissingPermissions(reply, 'api.*.delete_api');
    expect((await storedRootKeys()).length).toBe(before);
  });

  it('by a key with an expiry, of a key without one or expiring after it', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const { rootKey } = await workspace.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.read_api'], { expiresAt });
    const before = (await storedRootKeys()).length;
    for (const expires of [undefined, expiresAt.getTime() + 1]) {
      const reply = await create({ permissions: ['api.*.read_api'], expires }, rootKey);
      expect(reply.status).toBe(403);
      expect(reply.error?.message).toBe(
        `This root key expires at ${expiresAt.toISOString()} and cannot make a root key live longer than it will ` +
          `itself: \`expires\` must be ${expiresAt.getTime()} (${expiresAt.toISOString()}) or earlier.`,
      );
    }
    expect((await storedRootKeys()).length).toBe(before);
  });

  it("through a dashboard session, by its root key's expiry", async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const { rootKey } = await workspace.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.read_api'], { expiresAt });
    const session = await signIn(api, rootKey);
    const reply = await callInternal(api, 'rootKeys.createRootKey', { permissions: ['api.*.read_api'] }, { session });
    expect(reply.status).toBe(403);
  });
});

describe('cross-workspace isolation', () => {
  it('creates the key in the caller workspace only', async () => {
    const other = await api.workspace();
    const { key } = (await create({ permissions: ['api.*.read_api'] })).data;
    const theirs = (await api.call('apis.createApi', { name: 'theirs' }, other.rootKey)).body.data;
    expect((await api.post('apis.getApi', { apiId: theirs.apiId }, key)).status).toBe(404);
  });
});

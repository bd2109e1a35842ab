import { rows, sql } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectLimitExceeded, expectMissingPermissions } from '../assertions.ts';
import { keyRoleNames } from '../dbInspect.ts';
import { createRolesWith } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import * as shared from '../keyAccess.ts';

const api = useApi();
const access = shared.useKeyAccess(api, 'keys.addRoles', { roles: { reader: ['docs.read', 'docs.list'], writer: [] } });
const { em, newKey } = access;

beforeAll(async () => {
  await rows(em(), sql`update roles set description = 'Reads documents' where id = ${access.roleId('reader')}`);
});

const addRoles = (keyId: string, roles: string[], rootKey?: string) => access.send({ keyId, roles }, rootKey);
const verify = async (key: string, permissions: string) => {
  const reply = await api.call('keys.verifyKey', { key, permissions }, access.workspace.rootKey);
  expect(reply.status).toBe(200);
  return reply.body.data;
};

describe('200', () => {
  it("adds roles and answers the key's roles with their permissions", async () => {
    const { keyId } = await newKey({ roles: ['writer'] });
    const reply = await addRoles(keyId, ['reader']);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([
      {
        id: access.roleId('reader'),
        name: 'reader',
        description: 'Reads documents',
        permissions: [
          { id: expect.stringMatching(/^perm_/), name: 'docs.list', slug: 'docs.list' },
          { id: expect.stringMatching(/^perm_/), name: 'docs.read', slug: 'docs.read' },
        ],
      },
      { id: expect.stringMatching(/^role_/), name: 'writer', permissions: [] },
    ]);
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader', 'writer']);
  });

  shared.itTakesNamesOf128Characters(access, 'a', 'reader');

  shared.itIsIdempotent(access, ['reader', 'writer']);

  it("grants the role's permissions in verification at once (the cache is warm)", async () => {
    const { keyId, key } = await newKey();
    // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
    expect((await verify(key, 'docs.read')).code).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await verify(key, 'docs.read')).code).toBe('INSUFFICIENT_PERMISSIONS');
    await addRoles(keyId, ['reader']);
    const after = await verify(key, 'docs.read and docs.list');
    expect(after.code).toBe('VALID');
    expect(after.roles).toEqual(['reader']);
  });

  shared.itSucceedsWithExactly(access, 'with exactly update_key and rbac.*.add_role_to_key', {
    grants: ['rbac.*.add_role_to_key'],
    holds: {},
    names: ['writer'],
  });
});

describe('400', () => {
  shared.itRejectsInvalidInput(access, [
    [{ keyId: 'key_x', roles: [''] }, 'body.roles[0]'],
    [{ keyId: 'key_x', roles: ['reader'], extra: 1 }, 'body.extra'],
  ]);
});

describe('403', () => {
  shared.itNeedsUpdateKey(access, 'without update_key, naming it', {
    grants: ['rbac.*.add_role_to_key'],
    holds: {},
    names: ['reader'],
  });

  it('without rbac.*.add_role_to_key, naming it and adding nothing', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await access.workspace.rootKeyWith(['api.*.update_key']);
    expectMissingPermissions(await addRoles(keyId, ['reader'], rootKey), 'rbac.*.add_role_to_key');
    expect(await keyRoleNames(em(), keyId)).toEqual([]);
  });

  shared.itAnswersKeysOutOfReachAlike(access, {
    grants: ['rbac.*.add_role_to_key'],
    names: ['reader'],
    missing: ['api.*.update_key'],
  });
});

describe('404', () => {
  shared.itAnswersKeyNotFound(access, ['reader']);

  shared.itAnswersAMissingName(access, 'for a role that does not exist, adding none of the others', {
    holds: {},
    names: ['reader', 'ghost'],
  });
});

describe('412', () => {
  it('past the 100 roles a key may hold, adding none of them', async () => {
    const names = Array.from({ length: 101 }, (_, index) => `bulk-${index}`);
    await createRolesWith(api, access.workspace.workspaceId, Object.fromEntries(names.map((name) => [name, []])));
    const { keyId } = await newKey();
    expect(
      (await access.api.call('keys.setRoles', { keyId, roles: names.slice(0, 100) }, access.workspace.rootKey)).status,
    ).toBe(200);
    expectLimitExceeded(await addRoles(keyId, names.slice(99)), 'A key may hold at most 100 roles');
    expect(await keyRoleNames(em(), keyId)).toHaveLength(100);
    expect((await addRoles(keyId, names.slice(0, 1))).status).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  shared.itHidesTheKeyFromOtherWorkspaces(access, { holds: {}, names: ['reader'] });

  it("cannot give its key another workspace's role", async () => {
    const theirs = await access.keyOfAnotherWorkspace();
    const reply = await addRoles(theirs.keyId, ['reader'], theirs.workspace.rootKey);
    expect(reply.status).toBe(404);
    expect(reply.body.error.detail).toBe("Role 'reader' was not found.");
  });
});

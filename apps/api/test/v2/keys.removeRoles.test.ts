import { describe, expect, it } from 'vitest';
import { expectMissingPermissions } from '../assertions.ts';
import { keyRoleNames } from '../dbInspect.ts';
import { useApi } from '../harness.ts';
import * as shared from '../keyAccess.ts';

const api = useApi();
const access = shared.useKeyAccess(api, 'keys.removeRoles', {
  roles: { reader: ['docs.read'], writer: [], unused: [] },
});
const { em, newKey } = access;

const removeRoles = (keyId: string, roles: string[], rootKey?: string) => access.send({ keyId, roles }, rootKey);

describe('200', () => {
  shared.itTakesNamesOf128Characters(access, 'r', 'reader');

  it("removes roles and answers the key's remaining roles", async () => {
    const { keyId } = await newKey({ roles: ['reader', 'writer'] });
    const reply = await removeRoles(keyId, ['writer']);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([
      {
        id: expect.stringMatching(/^role_/),
        name: 'reader',
        permissions: [{ id: expect.stringMatching(/^perm_/), name: 'docs.read', slug: 'docs.read' }],
      },
    ]);
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });

  it('is a no-op for a role the key does not have, and when repeated', async () => {
    const { keyId } = await newKey({ roles: ['writer'] });
    expect((await removeRoles(keyId, ['unused'])).body.data.map((role) => role.name)).toEqual(['writer']);
    expect((await removeRoles(keyId, ['writer'])).body.data).toEqual([]);
    const again = await removeRoles(keyId, ['writer']);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual([]);
  });

  shared.itShowsInVerificationAtOnce(access, "verification loses the role's permissions at once (the cache is warm)", {
    holds: ['reader'],
    names: ['reader'],
  });

  shared.itSucceedsWithExactly(access, 'with exactly update_key and rbac.*.remove_role_from_key', {
    grants: ['rbac.*.remove_role_from_key'],
    holds: { roles: ['reader'] },
    names: ['reader'],
    leaves: [],
  });
});

describe('400', () => {
  shared.itRejectsInvalidInput(access, [
    [{ keyId: 'key_x', roles: ['no spaces'] }, 'body.roles[0]'],
    [{ keyId: 'key_x', roles: [7] }, 'body.roles[0]'],
  ]);
});

describe('403', () => {
  shared.itNeedsUpdateKey(access, 'without update_key, naming it and removing nothing', {
    grants: ['rbac.*.remove_role_from_key', 'api.*.read_key'],
    holds: { roles: ['reader'] },
    names: ['reader'],
  });

  it('without rbac.*.remove_role_from_key, naming it and removing nothing', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const { rootKey } = await access.workspace.rootKeyWith([
      `api.${access.apiId}.update_key`,
      'rbac.*.add_role_to_key',
    ]);
    expectMissingPermissions(await removeRoles(keyId, ['reader'], rootKey), 'rbac.*.remove_role_from_key');
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });

  it('naming everything missing in one answer', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const { rootKey } = await access.workspace.rootKeyWith(['api.*.read_key']);
    const reply = await removeRoles(keyId, ['reader'], rootKey);
    expectMissingPermissions(reply, `api.${access.apiId}.update_key`, 'rbac.*.remove_role_from_key');
  });

  shared.itAnswersKeysOutOfReachAlike(access, {
    grants: [],
    names: ['reader'],
    missing: ['api.*.update_key', 'rbac.*.remove_role_from_key'],
  });
});

describe('404', () => {
  shared.itAnswersKeyNotFound(access, ['reader']);

  shared.itAnswersAMissingKeyFirst(access, ['reader']);

  shared.itAnswersAMissingName(access, 'for a role that does not exist, removing none of the others', {
    holds: { roles: ['reader'] },
    names: ['reader', 'ghost'],
  });
});

describe('cross-workspace isolation', () => {
  shared.itHidesTheKeyFromOtherWorkspaces(access, { holds: { roles: ['reader'] }, names: ['reader'] });

  it("does not know another workspace's roles", async () => {
    const theirs = await access.keyOfAnotherWorkspace();
    expect((await removeRoles(theirs.keyId, ['reader'], theirs.workspace.rootKey)).status).toBe(404);
  });
});

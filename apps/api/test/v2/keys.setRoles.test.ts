import { describe, expect, it } from 'vitest';
import { expectLimitExceeded, expectMissingPermissions } from '../assertions.ts';
import { keyRoleNames } from '../dbInspect.ts';
import { useApi } from '../harness.ts';
import * as shared from '../keyAccess.ts';

const api = useApi();
const access = shared.useKeyAccess(api, 'keys.setRoles', {
  roles: { reader: ['docs.read'], writer: ['docs.write'], admin: [] },
});
const { em, newKey } = access;
const roleLinkGrants = ['rbac.*.add_role_to_key', 'rbac.*.remove_role_from_key'];

const setRoles = (keyId: string, roles: string[], rootKey?: string) => access.send({ keyId, roles }, rootKey);

describe('200', () => {
  it('makes the roles exactly the requested set', async () => {
    const { keyId } = await newKey({ roles: ['reader', 'writer'] });
    const reply = await setRoles(keyId, ['writer', 'admin']);
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((role) => [role.name, role.permissions.map((p) => p.slug)])).toEqual([
      ['admin', []],
      ['writer', ['docs.write']],
    ]);
    expect(await keyRoleNames(em(), keyId)).toEqual(['admin', 'writer']);
  });

  shared.itTakesNamesOf128Characters(access, 's', 'reader');

  it('clears them with []', async () => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const reply = await setRoles(keyId, []);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([]);
    expect(await keyRoleNames(em(), keyId)).toEqual([]);
  });

  shared.itIsIdempotent(access, ['reader', 'admin']);

  shared.itShowsInVerificationAtOnce(access, 'verification follows the new roles at once (the cache is warm)', {
    holds: ['reader'],
    names: ['writer'],
  });

  shared.itSucceedsWithExactly(
    access,
    'with exactly update_key, rbac.*.add_role_to_key and rbac.*.remove_role_from_key',
    {
      grants: roleLinkGrants,
      holds: { roles: ['reader'] },
      names: ['admin'],
      leaves: ['admin'],
    },
  );
});

describe('400', () => {
  shared.itRejectsInvalidInput(access, [
    [{ keyId: 'key_x', roles: null }, 'body.roles'],
    [{ keyId: 'key_x', roles: ['ok', ''] }, 'body.roles[1]'],
    [{ keyId: 'key_x', roles: ['ok', 's'.repeat(129)] }, 'body.roles[1]'],
  ]);
});

describe('403', () => {
  shared.itNeedsUpdateKey(access, 'without update_key, naming it and changing nothing', {
    grants: [...roleLinkGrants, 'api.*.create_key'],
    holds: { roles: ['reader'] },
    names: [],
  });

  it.each([
    ['rbac.*.add_role_to_key', ['api.*.update_key', 'rbac.*.remove_role_from_key']],
    ['rbac.*.remove_role_from_key', ['api.*.update_key', 'rbac.*.add_role_to_key']],
  ])('without %s, naming it and changing nothing', async (missing, grants) => {
    const { keyId } = await newKey({ roles: ['reader'] });
    const { rootKey } = await access.workspace.rootKeyWith(grants);
    expectMissingPermissions(await setRoles(keyId, ['writer'], rootKey), missing);
    expect(await keyRoleNames(em(), keyId)).toEqual(['reader']);
  });

  it('with neither update_key nor the rbac actions, naming everything missing in one answer', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await access.workspace.rootKeyWith(['api.*.read_key']);
    const reply = await setRoles(keyId, ['admin'], rootKey);
    expectMissingPermissions(reply, `api.${access.apiId}.update_key`, ...roleLinkGrants);
  });

  shared.itAnswersKeysOutOfReachAlike(access, { grants: roleLinkGrants, names: [], missing: ['api.*.update_key'] });
});

describe('404', () => {
  shared.itAnswersKeyNotFound(access, []);

  shared.itAnswersAMissingKeyFirst(access, []);

  shared.itAnswersAMissingName(access, 'for a role that does not exist, changing nothing', {
    holds: { roles: ['reader'] },
    names: ['writer', 'ghost'],
  });
});

describe('412', () => {
  it("past the 2000 permissions a key's roles may hold between them, changing nothing", async () => {
    const { rootKey } = access.workspace;
    for (const name of ['full-a', 'full-b', 'full-c']) {
      const permissions = Array.from({ length: 1000 }, (_, index) => `${name}.${index}`);
      expect((await api.call('permissions.createRole', { name, permissions }, rootKey)).status).toBe(200);
    }
    const { keyId } = await newKey({ roles: ['reader'] });
    expect((await setRoles(keyId, ['full-a', 'full-b'])).status).toBe(200);
    expectLimitExceeded(
      await setRoles(keyId, ['full-a', 'full-b', 'reader']),
      "A key's roles may hold at most 2000 permissions between them",
    );
    expect(await keyRoleNames(em(), keyId)).toEqual(['full-a', 'full-b']);
  });
});

describe('cross-workspace isolation', () => {
  shared.itHidesTheKeyFromOtherWorkspaces(access, { holds: { roles: ['reader'] }, names: [] });

  it("cannot give its key another workspace's roles", async () => {
    const theirs = await access.keyOfAnotherWorkspace();
    const reply = await setRoles(theirs.keyId, ['admin'], theirs.workspace.rootKey);
    expect(reply.status).toBe(404);
    expect(reply.body.error.detail).toBe("Role 'admin' was not found.");
  });
});

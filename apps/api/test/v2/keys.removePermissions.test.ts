import { describe, expect, it } from 'vitest';
import { expectMissingPermissions } from '../assertions.ts';
import { countRows, keyPermissionSlugs, permissionIdOf } from '../dbInspect.ts';
import { createRolesWith } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import * as shared from '../keyAccess.ts';

const api = useApi();
const access = shared.useKeyAccess(api, 'keys.removePermissions');
const { em, newKey, verify } = access;
const removePermissions = (keyId: string, permissions: string[], rootKey?: string) =>
  access.send({ keyId, permissions }, rootKey);
const removeFromKey = 'rbac.*.remove_permission_from_key';

describe('200', () => {
  it("removes permissions and answers the key's remaining direct permissions", async () => {
    const { keyId } = await newKey({ permissions: ['docs.read', 'docs.write', 'docs.delete'] });
    const reply = await removePermissions(keyId, ['docs.write', 'docs.delete']);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([{ id: expect.stringMatching(/^perm_/), name: 'docs.read', slug: 'docs.read' }]);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['docs.read']);
  });

  shared.itTakesNamesOf128Characters(access, 'r', 'docs.read');

  it('is a no-op for a permission that exists but is not attached, and when repeated', async () => {
    await newKey({ permissions: ['elsewhere.only'] });
    const { keyId } = await newKey({ permissions: ['mine.only'] });
    const first = await removePermissions(keyId, ['elsewhere.only']);
    expect(first.status).toBe(200);
    expect(first.body.data.map((p) => p.slug)).toEqual(['mine.only']);
    expect((await removePermissions(keyId, ['mine.only'])).body.data).toEqual([]);
    expect((await removePermissions(keyId, ['mine.only'])).body.data).toEqual([]);
  });

  it('detaches without deleting the permission, and keeps role-derived permissions', async () => {
    await createRolesWith(api, access.workspace.workspaceId, { 'remove-role': ['shared.perm'] });
    const { keyId, key } = await newKey({ roles: ['remove-role'], permissions: ['shared.perm'] });
    const before = await countRows(em(), 'permissions');
    await removePermissions(keyId, ['shared.perm']);
    expect(await countRows(em(), 'permissions')).toBe(before);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual([]);
    expect(await verify(key, 'shared.perm')).toBe('VALID');
  });

  shared.itShowsInVerificationAtOnce(access, 'verification sees the removal at once (the cache is warm)', {
    holds: ['live.remove'],
    names: ['live.remove'],
  });

  shared.itSucceedsWithExactly(access, 'needs no create_permission', {
    grants: [removeFromKey],
    holds: { permissions: ['scoped.remove'] },
    names: ['scoped.remove'],
  });
});

describe('400', () => {
  shared.itRejectsInvalidInput(access, [[{ keyId: 'key_x', permissions: ['a'], permanent: true }, 'body.permanent']]);
});

describe('403', () => {
  shared.itNeedsUpdateKey(access, 'without update_key, naming it', {
    grants: [removeFromKey],
    holds: { permissions: ['kept.a'] },
    names: ['kept.a'],
  });

  it('without rbac.*.remove_permission_from_key, naming it', async () => {
    const { keyId } = await newKey({ permissions: ['kept.b'] });
    const { rootKey } = await access.workspace.rootKeyWith(['api.*.update_key', 'rbac.*.add_permission_to_key']);
    expectMissingPermissions(await removePermissions(keyId, ['kept.b'], rootKey), removeFromKey);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['kept.b']);
  });

  shared.itAnswersKeysOutOfReachAlike(access, {
    grants: [removeFromKey],
    names: ['kept.a'],
    missing: ['api.*.update_key'],
  });
});

describe('404', () => {
  shared.itAnswersKeyNotFound(access, ['a']);

  shared.itAnswersAMissingName(access, 'for a slug the workspace does not have, removing nothing', {
    holds: { permissions: ['present.one'] },
    names: ['present.one', 'absent.one'],
  });

  it('treats a perm_ id as a slug', async () => {
    const { keyId } = await newKey({ permissions: ['by.id'] });
    const permissionId = await permissionIdOf(em(), access.workspace.workspaceId, 'by.id');
    expect((await removePermissions(keyId, [permissionId ?? ''])).status).toBe(404);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['by.id']);
  });
});

describe('cross-workspace isolation', () => {
  shared.itHidesTheKeyFromOtherWorkspaces(access, { holds: { permissions: ['iso.keep'] }, names: ['iso.keep'] });

  it("does not know another workspace's slugs", async () => {
    await newKey({ permissions: ['iso.foreign'] });
    const theirs = await access.keyOfAnotherWorkspace();
    const reply = await removePermissions(theirs.keyId, ['iso.foreign'], theirs.workspace.rootKey);
    expect(reply.status).toBe(404);
    expect(reply.body.error.detail).toBe("Permission 'iso.foreign' was not found.");
  });
});

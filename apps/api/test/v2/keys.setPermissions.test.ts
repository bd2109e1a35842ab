import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { callOn } from '../appVariants.ts';
import { expectLimitExceeded, expectMissingPermissions } from '../assertions.ts';
import { countRows, keyPermissionSlugs, permissionIdOf, permissionWorkspaceId } from '../dbInspect.ts';
import { useApi } from '../harness.ts';
import * as shared from '../keyAccess.ts';

const api = useApi();
const access = shared.useKeyAccess(api, 'keys.setPermissions');
const { em, newKey } = access;
const setPermissions = (keyId: string, permissions: string[], rootKey?: string) =>
  access.send({ keyId, permissions }, rootKey);
const linkGrants = ['rbac.*.add_permission_to_key', 'rbac.*.remove_permission_from_key'];

describe('200', () => {
  it('makes the direct permissions exactly the requested set, keeping the ids of those that stay', async () => {
    const { keyId } = await newKey({ permissions: ['set.a', 'set.b'] });
    const before = await permissionIdOf(em(), access.workspace.workspaceId, 'set.b');
    const reply = await setPermissions(keyId, ['set.b', 'set.c', 'set.c']);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([
      { id: before, name: 'set.b', slug: 'set.b' },
      { id: expect.stringMatching(/^perm_/), name: 'set.c', slug: 'set.c' },
    ]);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['set.b', 'set.c']);
  });

  it('clears them with [], deleting no permission', async () => {
    const { keyId } = await newKey({ permissions: ['clear.a', 'clear.b'] });
    const before = await countRows(em(), 'permissions');
    const reply = await setPermissions(keyId, []);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([]);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual([]);
    expect(await countRows(em(), 'permissions')).toBe(before);
  });

  shared.itTakesNamesOf128Characters(access, 's', 'docs.read');

  shared.itIsIdempotent(access, ['idem.x', 'idem.y']);

  shared.itShowsInVerificationAtOnce(access, 'verification sees the new set at once (the cache is warm)', {
    holds: ['live.old'],
    names: ['live.new'],
  });

  it('with update_key, both link grants and read_permission when every slug exists', async () => {
    await newKey({ permissions: ['existing.set'] });
    const { keyId } = await newKey();
    const { rootKey } = await access.workspace.rootKeyWith([
      'api.*.update_key',
      ...linkGrants,
      'rbac.*.read_permission',
    ]);
    expect((await setPermissions(keyId, ['existing.set'], rootKey)).status).toBe(200);
    expect((await setPermissions(keyId, [], rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  shared.itRejectsInvalidInput(access, [
    [{ keyId: 'key_x', permissions: null }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: ['ok', 'not ok'] }, 'body.permissions[1]'],
    [{ keyId: 'key_x', permissions: ['ok', 's'.repeat(129)] }, 'body.permissions[1]'],
    [{ keyId: 'key_x', permissions: [], roles: [] }, 'body.roles'],
  ]);
});

describe('403', () => {
  it.each([
    ['api.API_ID.update_key', [...linkGrants, 'api.*.read_key']],
    // A key it may not read: not even its API is named.
    ['api.*.update_key', linkGrants],
    ['rbac.*.add_permission_to_key', ['api.*.update_key', 'rbac.*.remove_permission_from_key']],
    ['rbac.*.remove_permission_from_key', ['api.*.update_key', 'rbac.*.add_permission_to_key']],
  ])('without %s, naming it and changing nothing', async (missing, grants) => {
    const { keyId } = await newKey({ permissions: ['untouched'] });
    const { rootKey } = await access.workspace.rootKeyWith(grants);
    expectMissingPermissions(await setPermissions(keyId, [], rootKey), missing.replace('API_ID', access.apiId));
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['untouched']);
  });

  it('without rbac.*.create_permission when a slug is new, creating and changing nothing', async () => {
    const { keyId } = await newKey({ permissions: ['stays'] });
    const before = await countRows(em(), 'permissions');
    const { rootKey } = await access.workspace.rootKeyWith([
      'api.*.update_key',
      ...linkGrants,
      'rbac.*.read_permission',
    ]);
    expectMissingPermissions(await setPermissions(keyId, ['never.created'], rootKey), 'rbac.*.create_permission');
    expect(await countRows(em(), 'permissions')).toBe(before);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['stays']);
  });

  it('without rbac.*.read_permission, rbac.*.create_permission even for slugs that exist', async () => {
    await newKey({ permissions: ['exists.for.set'] });
    const { keyId } = await newKey({ permissions: ['stays'] });
    const { rootKey } = await access.workspace.rootKeyWith(['api.*.update_key', ...linkGrants]);
    expectMissingPermissions(await setPermissions(keyId, ['exists.for.set'], rootKey), 'rbac.*.create_permission');
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['stays']);
  });

  shared.itAnswersKeysOutOfReachAlike(access, { grants: linkGrants, names: [], missing: ['api.*.update_key'] });

  it('with rbac.*.create_permission a new slug is created', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await access.workspace.rootKeyWith([
      'api.*.update_key',
      ...linkGrants,
      'rbac.*.create_permission',
    ]);
    const reply = await setPermissions(keyId, ['created.by.set'], rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((p) => p.slug)).toEqual(['created.by.set']);
  });
});

describe('404', () => {
  shared.itAnswersKeyNotFound(access, []);
});

describe('412', () => {
  it("to create permissions past the workspace's limit (LIMIT_PERMISSIONS), changing nothing", async () => {
    const { keyId } = await newKey({ permissions: ['untouched'] });
    const [held] = await rows(
      em(),
      sql<{
        count: number;
      }>`select count(*)::int as count from permissions where workspace_id = ${access.workspace.workspaceId}`,
    );
    const refused = await callOn(
      api,
      { limits: { permissions: held?.count ?? 0 } },
      'keys.setPermissions',
      { keyId, permissions: ['untouched', 'brand.new'] },
      access.workspace.rootKey,
    );
    expectLimitExceeded(refused, `A workspace may hold at most ${held?.count} permissions`);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['untouched']);
  });
});

describe('cross-workspace isolation', () => {
  shared.itHidesTheKeyFromOtherWorkspaces(access, { holds: { permissions: ['iso.set'] }, names: [] });

  it('gets its own permission for a slug another workspace has', async () => {
    await newKey({ permissions: ['iso.shared'] });
    const theirs = await access.keyOfAnotherWorkspace();
    const reply = await setPermissions(theirs.keyId, ['iso.shared'], theirs.workspace.rootKey);
    expect(await permissionWorkspaceId(em(), reply.body.data[0]?.id ?? '')).toBe(theirs.workspace.workspaceId);
  });
});

import { rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectLimitExceeded, expectMissingPermissions } from '../assertions.ts';
import { countRows, keyPermissionSlugs, permissionWorkspaceId } from '../dbInspect.ts';
import { createRolesWith } from '../fixtures.ts';
import { useApi } from '../harness.ts';
import * as shared from '../keyAccess.ts';

const api = useApi();
const access = shared.useKeyAccess(api, 'keys.addPermissions');
const { em, newKey } = access;
const addPermissions = (keyId: string, permissions: string[], rootKey?: string) =>
  access.send({ keyId, permissions }, rootKey);
const addToKey = 'rbac.*.add_permission_to_key';

describe('200', () => {
  it("adds permissions and answers the key's direct permissions", async () => {
    const { keyId } = await newKey({ permissions: ['docs.read'] });
    const reply = await addPermissions(keyId, ['docs.write', 'docs.delete']);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([
      { id: expect.stringMatching(/^perm_/), name: 'docs.delete', slug: 'docs.delete' },
      { id: expect.stringMatching(/^perm_/), name: 'docs.read', slug: 'docs.read' },
      { id: expect.stringMatching(/^perm_/), name: 'docs.write', slug: 'docs.write' },
    ]);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual(['docs.delete', 'docs.read', 'docs.write']);
  });

  shared.itTakesNamesOf128Characters(access, 'a', 'docs.read');

  shared.itIsIdempotent(access, ['idem.read', 'idem.write']);

  it('reuses existing permissions and creates missing ones, once', async () => {
    await newKey({ permissions: ['reuse.existing'] });
    const before = await countRows(em(), 'permissions');
    const { keyId } = await newKey();
    await addPermissions(keyId, ['reuse.existing', 'reuse.new']);
    expect(await countRows(em(), 'permissions')).toBe(before + 1);
  });

  it("includes a permission's description, and leaves out role-derived permissions", async () => {
    await createRolesWith(api, access.workspace.workspaceId, { 'add-perm-role': ['via.role'] });
    const { keyId } = await newKey({ roles: ['add-perm-role'] });
    await newKey({ permissions: ['described.one'] });
    await rows(
      em(),
      sql`update permissions set description = 'Read it' where workspace_id = ${access.workspace.workspaceId} and slug = 'described.one'`,
    );
    const reply = await addPermissions(keyId, ['described.one']);
    expect(reply.body.data).toEqual([
      { id: expect.any(String), name: 'described.one', slug: 'described.one', description: 'Read it' },
    ]);
  });

  shared.itSucceedsWithExactly(
    access,
    'with update_key, add_permission_to_key and read_permission when every slug exists',
    {
      grants: [addToKey, 'rbac.*.read_permission'],
      existing: { permissions: ['exists.already'] },
      holds: {},
      names: ['exists.already'],
    },
  );

  shared.itShowsInVerificationAtOnce(access, 'verification sees the new permission at once (the cache is warm)', {
    holds: [],
    names: ['live.check'],
  });

  it('accepts 1000 slugs', async () => {
    const { keyId } = await newKey();
    const permissions = Array.from({ length: 1000 }, (_, i) => `bulk.add.${i}`);
    const reply = await addPermissions(keyId, permissions);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toHaveLength(1000);
  });
});

describe('400', () => {
  shared.itRejectsInvalidInput(access, [
    [{ keyId: 'ab', permissions: ['a'] }, 'body.keyId'],
    [{ keyId: 'key_x', permissions: 'a' }, 'body.permissions'],
    [{ keyId: 'key_x', permissions: [''] }, 'body.permissions[0]'],
    [{ keyId: 'key_x', permissions: ['has space'] }, 'body.permissions[0]'],
    [{ keyId: 'key_x', permissions: [{ slug: 'a' }] }, 'body.permissions[0]'],
    [{ keyId: 'key_x', permissions: ['a'], extra: true }, 'body.extra'],
  ]);
});

describe('403', () => {
  shared.itNeedsUpdateKey(access, 'without update_key, naming it', {
    grants: [addToKey, 'rbac.*.create_permission'],
    holds: {},
    names: ['a.b'],
  });

  it('without rbac.*.add_permission_to_key, naming it', async () => {
    await newKey({ permissions: ['present.slug'] });
    const { keyId } = await newKey();
    const { rootKey } = await access.workspace.rootKeyWith(['api.*.update_key', 'rbac.*.read_permission']);
    expectMissingPermissions(await addPermissions(keyId, ['present.slug'], rootKey), addToKey);
  });

  it('names every missing permission at once', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await access.workspace.rootKeyWith(['api.*.read_key']);
    const reply = await addPermissions(keyId, ['x.y'], rootKey);
    expectMissingPermissions(reply, `api.${access.apiId}.update_key`, addToKey, 'rbac.*.create_permission');
  });

  it('without rbac.*.read_permission, rbac.*.create_permission even for slugs that exist', async () => {
    await newKey({ permissions: ['known.too'] });
    const { keyId } = await newKey();
    const { rootKey } = await access.workspace.rootKeyWith(['api.*.update_key', addToKey]);
    // Otherwise a 200 for a slug that exists and a 403 for one that does not would tell which do.
    expectMissingPermissions(await addPermissions(keyId, ['known.too'], rootKey), 'rbac.*.create_permission');
    expectMissingPermissions(await addPermissions(keyId, ['unknown.too'], rootKey), 'rbac.*.create_permission');
    expect(await keyPermissionSlugs(em(), keyId)).toEqual([]);
  });

  shared.itAnswersKeysOutOfReachAlike(access, {
    grants: [addToKey],
    names: ['a.b'],
    missing: ['api.*.update_key', 'rbac.*.create_permission'],
  });

  it('without rbac.*.create_permission when a slug is new, creating and attaching nothing', async () => {
    await newKey({ permissions: ['known.slug'] });
    const { keyId } = await newKey();
    const before = await countRows(em(), 'permissions');
    const { rootKey } = await access.workspace.rootKeyWith(['api.*.update_key', addToKey, 'rbac.*.read_permission']);
    const reply = await addPermissions(keyId, ['known.slug', 'unknown.slug'], rootKey);
    expectMissingPermissions(reply, 'rbac.*.create_permission');
    expect(await countRows(em(), 'permissions')).toBe(before);
    expect(await keyPermissionSlugs(em(), keyId)).toEqual([]);
  });

  it('with rbac.*.create_permission a new slug is created', async () => {
    const { keyId } = await newKey();
    const { rootKey } = await access.workspace.rootKeyWith(['api.*.update_key', addToKey, 'rbac.*.create_permission']);
    expect((await addPermissions(keyId, ['created.with.grant'], rootKey)).status).toBe(200);
  });
});

describe('404', () => {
  shared.itAnswersAMissingKeyFirst(access, ['a']);

  it('for a deleted key', async () => {
    const { keyId } = await newKey();
    await rows(em(), sql`update keys set deleted_at = now() where id = ${keyId}`);
    expect((await addPermissions(keyId, ['a'])).status).toBe(404);
  });
});

describe('412', () => {
  it('past the 1000 direct permissions a key may hold, adding none of them', async () => {
    const slugs = Array.from({ length: 1001 }, (_, index) => `many.${index}`);
    const { keyId } = await newKey({ permissions: slugs.slice(0, 1000) });
    expectLimitExceeded(
      await addPermissions(keyId, slugs.slice(999)),
      'A key may hold at most 1000 direct permissions',
    );
    expect(await keyPermissionSlugs(em(), keyId)).toHaveLength(1000);
    expect((await addPermissions(keyId, slugs.slice(0, 1))).status).toBe(200);
  });
});

describe('cross-workspace isolation', () => {
  shared.itHidesTheKeyFromOtherWorkspaces(access, { holds: {}, names: ['stolen'] });

  it("creates its own permission rather than using another workspace's slug", async () => {
    await newKey({ permissions: ['cross.slug'] });
    const theirs = await access.keyOfAnotherWorkspace();
    const { rootKey } = await theirs.workspace.rootKeyWith(['api.*.update_key', addToKey]);
    // The slug exists only in the first workspace: for the other one it is new.
    expect((await addPermissions(theirs.keyId, ['cross.slug'], rootKey)).status).toBe(403);
    const reply = await addPermissions(theirs.keyId, ['cross.slug'], theirs.workspace.rootKey);
    expect(await permissionWorkspaceId(em(), reply.body.data[0]?.id ?? '')).toBe(theirs.workspace.workspaceId);
  });
});

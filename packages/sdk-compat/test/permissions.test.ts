import { Unkey } from '@unkey/api';
import {
  APIError,
  BadRequestErrorResponse,
  ConflictErrorResponse,
  ForbiddenErrorResponse,
  NotFoundErrorResponse,
  UnauthorizedErrorResponse,
} from '@unkey/api/models/errors';
import { beforeAll, describe, expect, it } from 'vitest';
import { everyItem, expectWorkspaceRateLimited, problemType, rejection } from './errors.ts';
import { useKeyplane } from './keyplane.ts';

// `unkey.permissions.*` of @unkey/api against a Keyplane server.

const keyplane = useKeyplane();
let unkey: Unkey;

beforeAll(() => {
  unkey = keyplane.unkey;
});

describe('200', () => {
  it('createPermission, getPermission, listPermissions, deletePermission', async () => {
    const created = await unkey.permissions.createPermission({
      name: 'Read documents',
      slug: 'documents.read',
      description: 'may read',
    });
    expect(created.data.permissionId).toMatch(/^perm_/);
    const got = await unkey.permissions.getPermission({ permission: 'documents.read' });
    expect(got.data).toEqual({
      id: created.data.permissionId,
      name: 'Read documents',
      slug: 'documents.read',
      description: 'may read',
    });
    await unkey.permissions.createPermission({ name: 'Write documents', slug: 'documents.write' });
    const first = await unkey.permissions.listPermissions({ limit: 1 });
    expect(first.result.pagination).toEqual({ cursor: expect.any(String), hasMore: true });
    const listed = await everyItem(first);
    expect(listed.pageCount).toBe(2);
    expect(listed.items.map((permission) => permission.slug)).toEqual(['documents.read', 'documents.write']);
    expect((await unkey.permissions.deletePermission({ permission: 'documents.write' })).data).toEqual({});
    await rejection(unkey.permissions.getPermission({ permission: 'documents.write' }), NotFoundErrorResponse, 404);
  });

  it('createRole, getRole, listRoles, setRolePermissions, deleteRole', async () => {
    const created = await unkey.permissions.createRole({
      name: 'editor',
      description: 'edits',
      permissions: ['pages.edit'],
    });
    expect(created.data.roleId).toMatch(/^role_/);
    const got = await unkey.permissions.getRole({ role: 'editor' });
    expect(got.data).toMatchObject({ id: created.data.roleId, name: 'editor', description: 'edits' });
    expect(got.data.permissions?.map((permission) => permission.slug)).toEqual(['pages.edit']);

    const set = await unkey.permissions.setRolePermissions({
      roleId: created.data.roleId,
      permissions: ['pages.view', 'pages.publish'],
    });
    expect(set.data).toBeDefined();
    const after = await unkey.permissions.getRole({ role: created.data.roleId });
    expect(after.data.permissions?.map((permission) => permission.slug).sort()).toEqual([
      'pages.publish',
      'pages.view',
    ]);

    const listed = await unkey.permissions.listRoles({ search: 'edit' });
    expect(listed.result.data.map((role) => role.name)).toEqual(['editor']);
    expect(listed.result.pagination).toEqual({ hasMore: false });

    expect((await unkey.permissions.deleteRole({ role: 'editor' })).data).toEqual({});
    await rejection(unkey.permissions.getRole({ role: 'editor' }), NotFoundErrorResponse, 404);
  });
});

describe('400', () => {
  it('a slug with a space is a BadRequestErrorResponse naming the field', async () => {
    const error = await rejection(
      unkey.permissions.createPermission({ name: 'bad', slug: 'has space' }),
      BadRequestErrorResponse,
      400,
    );
    expect(error.error.errors).toEqual([expect.objectContaining({ location: 'body.slug' })]);
  });
});

describe('401', () => {
  it('an unknown root key is an UnauthorizedErrorResponse', async () => {
    const stranger = new Unkey({ serverURL: keyplane.url, rootKey: 'kproot_unknown' });
    await rejection(stranger.permissions.listRoles({}), UnauthorizedErrorResponse, 401);
  });
});

describe('403', () => {
  it('a root key without the rbac permission is a ForbiddenErrorResponse naming it', async () => {
    const reader = await keyplane.unkeyWith(['rbac.*.read_role']);
    const error = await rejection(reader.permissions.createRole({ name: 'denied' }), ForbiddenErrorResponse, 403);
    expect(error.error.detail).toContain('rbac.*.create_role');
    await rejection(reader.permissions.listPermissions({}), ForbiddenErrorResponse, 403);
  });
});

describe('404', () => {
  it('a permission or role that does not exist is a NotFoundErrorResponse', async () => {
    const error = await rejection(unkey.permissions.getRole({ role: 'nobody' }), NotFoundErrorResponse, 404);
    expect(problemType(error)).toBe('service/data/role_not_found');
    await rejection(unkey.permissions.deletePermission({ permission: 'perm_nothing' }), NotFoundErrorResponse, 404);
    await rejection(
      unkey.permissions.setRolePermissions({ roleId: 'role_nothing', permissions: [] }),
      NotFoundErrorResponse,
      404,
    );
  });

  it('deleteRole of a role that does not exist: the SDK maps no 404 for it, so it is its APIError', async () => {
    const error = await rejection(unkey.permissions.deleteRole({ role: 'nobody' }), APIError, 404);
    expect(JSON.parse(error.body)).toMatchObject({
      error: { status: 404, type: expect.stringContaining('role_not_found') },
    });
  });
});

describe('409', () => {
  it('a second permission with the same slug, or role with the same name, is a ConflictErrorResponse', async () => {
    await unkey.permissions.createPermission({ name: 'once', slug: 'once.only' });
    const error = await rejection(
      unkey.permissions.createPermission({ name: 'again', slug: 'once.only' }),
      ConflictErrorResponse,
      409,
    );
    expect(problemType(error)).toBe('service/data/permission_already_exists');
    await unkey.permissions.createRole({ name: 'unique' });
    await rejection(unkey.permissions.createRole({ name: 'unique' }), ConflictErrorResponse, 409);
  });
});

describe('429', () => {
  it('a workspace past its API rate limit gets a 429, as the SDK’s TooManyRequestsErrorResponse', async () => {
    const limited = await keyplane.unkeyOfRateLimitedWorkspace();
    await expectWorkspaceRateLimited(limited.permissions.listPermissions({}));
  });
});

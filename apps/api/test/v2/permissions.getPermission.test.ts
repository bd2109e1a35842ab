import { beforeAll, describe, expect, it } from 'vitest';
import { expectMissingPermissions, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import type { InputOf } from '../procedures.ts';
import { itAnswersNotFoundFor, itRefusesBeforeTheLookup, nameFieldCases } from '../rbac.ts';

const { api, workspace } = useApiWithWorkspace();
let readId: string;

const getPermission = (body: InputOf<'permissions.getPermission'>, rootKey = workspace.rootKey) =>
  api.call('permissions.getPermission', body, rootKey);

async function createPermission(body: InputOf<'permissions.createPermission'>, rootKey = workspace.rootKey) {
  const reply = await api.call('permissions.createPermission', body, rootKey);
  if (reply.status !== 200) throw new Error(`createPermission: ${JSON.stringify(reply.body)}`);
  return reply.body.data.permissionId;
}

beforeAll(async () => {
  readId = await createPermission({ name: 'Read documents', slug: 'docs.read', description: 'Reads them' });
});

describe('200', () => {
  it('by id', async () => {
    const reply = await getPermission({ permission: readId });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      id: readId,
      name: 'Read documents',
      slug: 'docs.read',
      description: 'Reads them',
    });
  });

  it('by slug, the same permission', async () => {
    const reply = await getPermission({ permission: 'docs.read' });
    expect(reply.status).toBe(200);
    expect(reply.body.data.id).toBe(readId);
  });

  it('omits an absent description', async () => {
    const id = await createPermission({ name: 'plain', slug: 'plain' });
    const reply = await getPermission({ permission: 'plain' });
    expect(reply.body.data).toEqual({ id, name: 'plain', slug: 'plain' });
  });

  it("by id when another permission's slug is that id", async () => {
    const lookalike = await createPermission({ name: 'lookalike', slug: readId });
    expect((await getPermission({ permission: readId })).body.data.id).toBe(readId);
    const other = await createPermission({ name: 'other', slug: 'other' });
    await createPermission({ name: 'shadow', slug: other });
    expect((await getPermission({ permission: other })).body.data.name).toBe('other');
    expect(lookalike).not.toBe(readId);
  });

  it('with exactly rbac.*.read_permission', async () => {
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.read_permission']);
    expect((await getPermission({ permission: readId }, rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  itRejectsEach(api, 'permissions.getPermission', () => workspace.rootKey, nameFieldCases('permission', 'docs.read'));
});

describe('403', () => {
  it('without rbac.*.read_permission, naming it', async () => {
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.create_permission', 'rbac.*.read_role']);
    const reply = await getPermission({ permission: readId }, rootKey);
    expectMissingPermissions(reply, 'rbac.*.read_permission');
  });

  itRefusesBeforeTheLookup(
    'permission',
    () => workspace,
    [],
    (id, rootKey) => getPermission({ permission: id }, rootKey),
  );
});

describe('404', () => {
  itAnswersNotFoundFor('permission', ['perm_doesnotexist', 'no.such.slug'], (permission) =>
    getPermission({ permission }),
  );

  it('slugs are matched exactly, letter case included', async () => {
    expect((await getPermission({ permission: 'DOCS.READ' })).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace's permission does not exist, by id or by slug", async () => {
    const other = await api.workspace();
    const theirs = await createPermission({ name: 'theirs', slug: 'their.slug' }, other.rootKey);
    expect((await getPermission({ permission: theirs })).status).toBe(404);
    expect((await getPermission({ permission: 'their.slug' })).status).toBe(404);
    expect((await getPermission({ permission: readId }, other.rootKey)).status).toBe(404);
    expect((await getPermission({ permission: 'docs.read' }, other.rootKey)).status).toBe(404);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { expectMissingPermissions, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import type { InputOf } from '../procedures.ts';
import { itAnswersNotFoundFor, itRefusesBeforeTheLookup, nameFieldCases } from '../rbac.ts';

const { api, workspace } = useApiWithWorkspace();
let editorId: string;

const getRole = (body: InputOf<'permissions.getRole'>, rootKey = workspace.rootKey) =>
  api.call('permissions.getRole', body, rootKey);

async function createRole(body: InputOf<'permissions.createRole'>, rootKey = workspace.rootKey) {
  const reply = await api.call('permissions.createRole', body, rootKey);
  if (reply.status !== 200) throw new Error(`createRole: ${JSON.stringify(reply.body)}`);
  return reply.body.data.roleId;
}

beforeAll(async () => {
  await api.post(
    'permissions.createPermission',
    { name: 'Write documents', slug: 'docs.write', description: 'Changes them' },
    workspace.rootKey,
  );
  editorId = await createRole({ name: 'editor', description: 'Edits', permissions: ['docs.write', 'docs.read'] });
});

describe('200', () => {
  it('by id, with its permissions by slug', async () => {
    const reply = await getRole({ role: editorId });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      id: editorId,
      name: 'editor',
      description: 'Edits',
      permissions: [
        { id: expect.stringMatching(/^perm_/), name: 'docs.read', slug: 'docs.read' },
        {
          id: expect.stringMatching(/^perm_/),
          name: 'Write documents',
          slug: 'docs.write',
          description: 'Changes them',
        },
      ],
    });
  });

  it('by name, the same role', async () => {
    const byName = await getRole({ role: 'editor' });
    expect(byName.status).toBe(200);
    expect(byName.body.data).toEqual((await getRole({ role: editorId })).body.data);
  });

  it('a role without permissions or description', async () => {
    const id = await createRole({ name: 'bare' });
    expect((await getRole({ role: 'bare' })).body.data).toEqual({ id, name: 'bare', permissions: [] });
  });

  it("by id when another role's name is that id", async () => {
    await createRole({ name: editorId });
    expect((await getRole({ role: editorId })).body.data.name).toBe('editor');
  });

  it('with exactly rbac.*.read_role', async () => {
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.read_role']);
    expect((await getRole({ role: editorId }, rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  itRejectsEach(api, 'permissions.getRole', () => workspace.rootKey, nameFieldCases('role', 'editor'));
});

describe('403', () => {
  it('without rbac.*.read_role, naming it', async () => {
    const { rootKey } = await workspace.rootKeyWith(['rbac.*.read_permission', 'rbac.*.create_role']);
    const reply = await getRole({ role: editorId }, rootKey);
    expectMissingPermissions(reply, 'rbac.*.read_role');
  });

  itRefusesBeforeTheLookup(
    'role',
    () => workspace,
    [],
    (id, rootKey) => getRole({ role: id }, rootKey),
  );
});

describe('404', () => {
  itAnswersNotFoundFor('role', ['role_doesnotexist', 'no-such-name', 'EDITOR'], (role) => getRole({ role }));
});

describe('cross-workspace isolation', () => {
  it("another workspace's role does not exist, by id or by name", async () => {
    const other = await api.workspace();
    const theirs = await createRole({ name: 'their-role' }, other.rootKey);
    expect((await getRole({ role: theirs })).status).toBe(404);
    expect((await getRole({ role: 'their-role' })).status).toBe(404);
    expect((await getRole({ role: editorId }, other.rootKey)).status).toBe(404);
    expect((await getRole({ role: 'editor' }, other.rootKey)).status).toBe(404);
  });
});

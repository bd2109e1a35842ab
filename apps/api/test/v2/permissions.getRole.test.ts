import { beforeAll, describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestRole, itAnswersNotFoundFor } from '../rbac.ts';
import * as shared from '../rbacCases.ts';

const { api, workspace } = useApiWithWorkspace();
const twin = shared.useItemTwin(api, 'permissions.getRole', () => workspace);
let editorId: string;

beforeAll(async () => {
  await api.post(
    'permissions.createPermission',
    { name: 'Write documents', slug: 'docs.write', description: 'Changes them' },
    workspace.rootKey,
  );
  editorId = await createTestRole(api, workspace.rootKey, {
    name: 'editor',
    description: 'Edits',
    permissions: ['docs.write', 'docs.read'],
  });
});

describe('200', () => {
  shared.itGetsByIdOrHandle(twin, () => ({
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
  }));

  shared.itGetsByIdBeforeHandle(twin);

  it('a role without permissions or description', async () => {
    const id = await createTestRole(api, workspace.rootKey, { name: 'bare' });
    expect((await twin.send('bare')).body.data).toEqual({ id, name: 'bare', permissions: [] });
  });

  shared.itAnswersWithExactlyTheGrant(twin, 'read');
});

describe('400', () => {
  shared.itRejectsInvalidNames(twin, 'editor');
});

describe('403', () => {
  shared.itNeedsTheGrant(twin, 'read', { others: ['rbac.*.read_permission', 'rbac.*.create_role'], beforeLookup: [] });
});

describe('404', () => {
  // Names are matched exactly, letter case included.
  itAnswersNotFoundFor('role', ['role_doesnotexist', 'no-such-name', 'EDITOR'], twin.send);
});

describe('cross-workspace isolation', () => {
  shared.itKeepsWorkspacesApart(twin);
});

import { beforeAll, describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestPermission, itAnswersNotFoundFor } from '../rbac.ts';
import * as shared from '../rbacCases.ts';

const { api, workspace } = useApiWithWorkspace();
const twin = shared.useItemTwin(api, 'permissions.getPermission', () => workspace);
let readId: string;

beforeAll(async () => {
  readId = await createTestPermission(api, workspace.rootKey, {
    name: 'Read documents',
    slug: 'docs.read',
    description: 'Reads them',
  });
});

describe('200', () => {
  shared.itGetsByIdOrHandle(twin, () => ({
    id: readId,
    name: 'Read documents',
    slug: 'docs.read',
    description: 'Reads them',
  }));

  shared.itGetsByIdBeforeHandle(twin);

  it('omits an absent description', async () => {
    const id = await createTestPermission(api, workspace.rootKey, { name: 'plain', slug: 'plain' });
    expect((await twin.send('plain')).body.data).toEqual({ id, name: 'plain', slug: 'plain' });
  });

  shared.itAnswersWithExactlyTheGrant(twin, 'read');
});

describe('400', () => {
  shared.itRejectsInvalidNames(twin, 'docs.read');
});

describe('403', () => {
  shared.itNeedsTheGrant(twin, 'read', { others: ['rbac.*.create_permission', 'rbac.*.read_role'], beforeLookup: [] });
});

describe('404', () => {
  it('slugs are matched exactly, letter case included', async () => {
    expect((await twin.send('DOCS.READ')).status).toBe(404);
  });

  itAnswersNotFoundFor('permission', ['perm_doesnotexist', 'no.such.slug'], twin.send);
});

describe('cross-workspace isolation', () => {
  shared.itKeepsWorkspacesApart(twin);
});

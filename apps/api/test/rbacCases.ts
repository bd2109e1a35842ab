import { rows, sql } from '@keyplane/db';
import { expect, it } from 'vitest';
import { expectInvalidInput, expectMissingPermissions, itRejectsEach } from './assertions.ts';
import { useWorkspace } from './fixtures.ts';
import { type Api, type Reply, type TestWorkspace, walkList } from './harness.ts';
import { createTestPermission, createTestRole, itRefusesBeforeTheLookup, nameFieldCases } from './rbac.ts';

// permissions.{create,get,delete}{Permission,Role} and list{Permissions,Roles} come in twins, one
// for permissions and one for roles, whose contracts differ mostly in the kind: what names one
// besides its id (a permission's slug, a role's name) and the rbac.* grants. The cases both twins
// share are written once here, for the kind; each procedure's file calls them inside its own
// describes, beside the cases that are its own.

export type RbacKind = 'permission' | 'role';

/** A permission's or role's row as stored: a permission with its slug, a role with its permissions' slugs. */
interface StoredRbac {
  workspace_id: string;
  name: string;
  description: string | null;
  slug?: string;
  slugs?: string[];
}

async function storedPermission(api: Api, id: string): Promise<StoredRbac | undefined> {
  const [found] = await rows(
    api.em(),
    sql<StoredRbac>`select workspace_id, name, slug, description from permissions where id = ${id}`,
  );
  return found;
}

async function storedRole(api: Api, id: string): Promise<StoredRbac | undefined> {
  const [role] = await rows(
    api.em(),
    sql<StoredRbac>`select workspace_id, name, description from roles where id = ${id}`,
  );
  const permissions = await rows(
    api.em(),
    sql<{ slug: string }>`
      select p.slug from roles_permissions rp join permissions p on p.id = rp.permission_id
      where rp.role_id = ${id} order by p.slug`,
  );
  return role && { ...role, slugs: permissions.map((permission) => permission.slug) };
}

/** Permissions or roles: how the twins' tests make them and find them. */
export function rbacKind(api: Api, kind: RbacKind) {
  const stored = (id: string) => (kind === 'role' ? storedRole(api, id) : storedPermission(api, id));
  return {
    kind,
    /** What names one besides its id: a permission's slug, a role's name. */
    handle: kind === 'role' ? 'name' : 'slug',
    /** The grant to `action` this kind, `rbac.*.read_role`. */
    grant: (action: 'read' | 'delete' | 'create') => `rbac.*.${action}_${kind}`,
    /** Creates one named `handle` (a permission's slug and name) in the workspace of `rootKey`; answers its id. */
    create: (rootKey: string, handle: string) =>
      kind === 'role'
        ? createTestRole(api, rootKey, { name: handle })
        : createTestPermission(api, rootKey, { name: handle, slug: handle }),
    /** Its row, undefined once there is none. */
    stored,
    exists: async (id: string) => (await stored(id)) !== undefined,
  };
}

type ItemProcedure =
  | 'permissions.getPermission'
  | 'permissions.getRole'
  | 'permissions.deletePermission'
  | 'permissions.deleteRole';

/** A get or delete twin of the file's workspace, called with one id, slug or name. */
export function useItemTwin(api: Api, procedure: ItemProcedure, workspace: () => TestWorkspace) {
  const kind: RbacKind = procedure.endsWith('Role') ? 'role' : 'permission';
  const items = rbacKind(api, kind);
  return {
    ...items,
    api,
    procedure,
    workspace,
    send: (ref: string, rootKey = workspace().rootKey) =>
      api.post<{ id: string; name: string }>(procedure, { [kind]: ref }, rootKey),
    /** Creates one in the file's workspace. */
    createHere: (handle: string) => items.create(workspace().rootKey, handle),
  };
}

type ItemTwin = ReturnType<typeof useItemTwin>;

/** 400 for a missing, empty, too long or spaced id, slug or name, and for an unknown field beside `valid`. */
export function itRejectsInvalidNames(twin: ItemTwin, valid: string): void {
  itRejectsEach(twin.api, twin.procedure, () => twin.workspace().rootKey, nameFieldCases(twin.kind, valid));
}

/** 200 to a root key holding exactly the grant to `action` the kind, and nothing else. */
export function itAnswersWithExactlyTheGrant(twin: ItemTwin, action: 'read' | 'delete'): void {
  it(`with exactly ${twin.grant(action)}`, async () => {
    const id = await twin.createHere('exact-grant');
    const { rootKey } = await twin.workspace().rootKeyWith([twin.grant(action)]);
    expect((await twin.send(id, rootKey)).status).toBe(200);
  });
}

/**
 * The grant to `action` the kind: 403 naming it when the root key holds only `others`, the one
 * asked for still there; and 403, not 404, for one that does not exist, to a root key holding only
 * `beforeLookup`.
 */
export function itNeedsTheGrant(
  twin: ItemTwin,
  action: 'read' | 'delete',
  grants: { others: string[]; beforeLookup: string[] },
): void {
  it(`without ${twin.grant(action)}, naming it and changing nothing`, async () => {
    const id = await twin.createHere(`kept-${action}`);
    const { rootKey } = await twin.workspace().rootKeyWith(grants.others);
    expectMissingPermissions(await twin.send(id, rootKey), twin.grant(action));
    expect(await twin.exists(id)).toBe(true);
  });

  itRefusesBeforeTheLookup(twin.kind, twin.workspace, grants.beforeLookup, (id, rootKey) => twin.send(id, rootKey));
}

/** 404 both ways between two workspaces, by id and by slug or name, and neither loses its own. */
export function itKeepsWorkspacesApart(twin: ItemTwin): void {
  it(`another workspace's ${twin.kind} does not exist, by id or by ${twin.handle}, and neither is touched`, async () => {
    const other = await twin.api.workspace();
    const theirs = await twin.create(other.rootKey, 'their-own');
    const ours = await twin.createHere('our-own');
    const mine = twin.workspace().rootKey;
    expect((await twin.send(theirs, mine)).status).toBe(404);
    expect((await twin.send('their-own', mine)).status).toBe(404);
    expect((await twin.send(ours, other.rootKey)).status).toBe(404);
    expect((await twin.send('our-own', other.rootKey)).status).toBe(404);
    expect(await twin.exists(theirs)).toBe(true);
    expect(await twin.exists(ours)).toBe(true);
  });
}

/** 200 for a get by id, answering `expected()` (read once the file's beforeAll ran), and the same by its slug or name. */
export function itGetsByIdOrHandle(
  twin: ItemTwin,
  expected: () => { id: string; name: string; slug?: string } & Record<string, unknown>,
): void {
  it(`by id or by ${twin.handle}, the same ${twin.kind}`, async () => {
    const want = expected();
    for (const ref of [want.id, want[twin.handle === 'slug' ? 'slug' : 'name'] ?? '']) {
      const reply = await twin.send(ref);
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual(want);
    }
  });
}

/** An id is an id first: a get by it answers its own, not one whose slug or name is that id. */
export function itGetsByIdBeforeHandle(twin: ItemTwin): void {
  it(`by id when another ${twin.kind}'s ${twin.handle} is that id`, async () => {
    const id = await twin.createHere('original');
    const lookalike = await twin.createHere(id);
    const reply = await twin.send(id);
    expect(reply.body.data.id).toBe(id);
    expect(reply.body.data.name).toBe('original');
    expect(lookalike).not.toBe(id);
  });
}

/** 200 for a delete by slug or name; by id, one whose slug or name is that id is left alone. */
export function itDeletesByHandleOrId(twin: ItemTwin): void {
  it(`by ${twin.handle}`, async () => {
    const id = await twin.createHere(`gone-by-${twin.handle}`);
    expect((await twin.send(`gone-by-${twin.handle}`)).status).toBe(200);
    expect(await twin.exists(id)).toBe(false);
  });

  it(`by id, leaving a ${twin.kind} whose ${twin.handle} is that id alone`, async () => {
    const id = await twin.createHere('target');
    const lookalike = await twin.createHere(id);
    expect((await twin.send(id)).status).toBe(200);
    expect(await twin.exists(id)).toBe(false);
    expect(await twin.exists(lookalike)).toBe(true);
  });
}

/** 404 for the second of two deletes of one. */
export function itAnswersTheSecondDeleteNotFound(twin: ItemTwin): void {
  it('the second of two deletes', async () => {
    const id = await twin.createHere('twice');
    expect((await twin.send(id)).status).toBe(200);
    expect((await twin.send(id)).status).toBe(404);
  });
}

type CreateProcedure = 'permissions.createPermission' | 'permissions.createRole';

/** A create twin of the file's workspace. */
export function useCreateTwin(api: Api, procedure: CreateProcedure, workspace: () => TestWorkspace) {
  const kind: RbacKind = procedure === 'permissions.createRole' ? 'role' : 'permission';
  return {
    ...rbacKind(api, kind),
    api,
    procedure,
    workspace,
    send: (input: Record<string, unknown>, rootKey = workspace().rootKey) =>
      api.post<Record<string, string>>(procedure, input, rootKey),
    /** The input of one named `handle` and nothing else (a permission's slug names it too). */
    inputFor: (handle: string) => (kind === 'role' ? { name: handle } : { name: handle, slug: handle }),
    /** How many of the file's workspace go by `handle`. */
    countNamed: async (handle: string) => {
      const { workspaceId } = workspace();
      const query =
        kind === 'role'
          ? sql`select 1 from roles where workspace_id = ${workspaceId} and name = ${handle}`
          : sql`select 1 from permissions where workspace_id = ${workspaceId} and slug = ${handle}`;
      return (await rows(api.em(), query)).length;
    },
  };
}

type CreateTwin = ReturnType<typeof useCreateTwin>;

/**
 * 200 for `input`, answering the new one's id (`perm_…`, `role_…`); its row then holds the input,
 * the caller's workspace and what it holds `besides`, and nothing else.
 */
export function itCreatesOne(
  twin: CreateTwin,
  title: string,
  request: {
    input: Record<string, unknown>;
    besides?: Record<string, unknown>;
  },
): void {
  const idField = `${twin.kind}Id`;
  it(title, async () => {
    const reply = await twin.send(request.input);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ [idField]: expect.stringMatching(twin.kind === 'role' ? /^role_/ : /^perm_/) });
    expect(await twin.stored(reply.body.data[idField] ?? '')).toEqual({
      workspace_id: twin.workspace().workspaceId,
      ...request.input,
      ...request.besides,
    });
  });
}

/** 403 naming the create grant of the kind when the root key holds only `others`, creating nothing. */
export function itNeedsTheCreateGrant(twin: CreateTwin, others: string[]): void {
  it(`without ${twin.grant('create')}, naming it and creating nothing`, async () => {
    const { rootKey } = await twin.workspace().rootKeyWith(others);
    expectMissingPermissions(await twin.send(twin.inputFor('forbidden'), rootKey), twin.grant('create'));
    expect(await twin.countNamed('forbidden')).toBe(0);
  });
}

/**
 * Of two creates of one slug or name at once, exactly one wins and the other is a 409, never a
 * 500, five times over; `more` adds to both inputs of a round, and `check` looks at the round after.
 */
export function itLetsOneOfTwoRacingCreatesWin(
  twin: CreateTwin,
  options: { more?: (round: number) => Record<string, unknown>; check?: (round: number) => Promise<void> } = {},
): void {
  it(`under concurrency: of two creates of one ${twin.handle} exactly one wins, the other is a 409 (never a 500)`, async () => {
    for (let round = 0; round < 5; round++) {
      const input = { ...twin.inputFor(`race-${round}`), ...options.more?.(round) };
      const replies = await Promise.all([twin.send(input), twin.send(input)]);
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
      expect(await twin.countNamed(`race-${round}`)).toBe(1);
      await options.check?.(round);
    }
  });
}

type ListProcedure = 'permissions.listPermissions' | 'permissions.listRoles';
/** What the walk tests read of a listed permission or role. */
type Listed = { id: string; name: string; permissions?: { slug: string }[] };
type Page = Reply<Listed[]> & { body: { pagination: { hasMore: boolean; cursor?: string } } };

/** A list twin, answering pages of permissions or roles. */
export function useListTwin(api: Api, procedure: ListProcedure) {
  return {
    ...rbacKind(api, procedure === 'permissions.listRoles' ? 'role' : 'permission'),
    api,
    procedure,
    list: async (body: Record<string, unknown>, rootKey: string) =>
      (await api.post(procedure, body, rootKey)) as unknown as Page,
    /** Every page from the first on, calling `between` after each page. */
    walk: async (rootKey: string, body: Record<string, unknown>, between?: () => Promise<void>) =>
      (await walkList(api, procedure, rootKey, body, between)) as Listed[],
    /** The ids of every page from the first on. */
    walkIds: async (rootKey: string, body: Record<string, unknown>) =>
      (await walkList(api, procedure, rootKey, body)).map((item) => item.id),
  };
}

type ListTwin = ReturnType<typeof useListTwin>;

/** 200 for a workspace without any: no data, no more pages. */
export function itListsAnEmptyWorkspace(twin: ListTwin): void {
  it('an empty workspace: no data, no more', async () => {
    const empty = await twin.api.workspace();
    const reply = await twin.list({}, empty.rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual([]);
    expect(reply.body.pagination).toEqual({ hasMore: false });
  });
}

/**
 * A walk of 3 a page sees each of 7 made by `seed` (by default named walk-0 to walk-6), and those
 * added between its pages, exactly once and in id order: ids sort by creation, so what is added
 * comes after the cursor. `check` reads the walk's items besides.
 */
export function itWalksEachOnceWhileSomeAreAdded(
  twin: ListTwin,
  options: { seed?: (rootKey: string, index: number) => Promise<string>; check?: (seen: Listed[]) => void } = {},
): void {
  const seed = options.seed ?? ((rootKey, index) => twin.create(rootKey, `walk-${index}`));
  it(`a walk visits every ${twin.kind} exactly once while ${twin.kind}s are added between pages, new ones included`, async () => {
    const fresh = await twin.api.workspace();
    const before = [];
    for (let i = 0; i < 7; i++) before.push(await seed(fresh.rootKey, i));
    const added: string[] = [];
    const seen = await twin.walk(fresh.rootKey, { limit: 3 }, async () => {
      added.push(await twin.create(fresh.rootKey, `added-${added.length}`));
    });
    const ids = seen.map((item) => item.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining(before));
    expect(ids.sort()).toEqual([...before, ...added].sort());
    options.check?.(seen);
  });
}

/**
 * 400 for what no list takes: a limit out of 1 to 100, an empty cursor, a search over 256
 * characters, an unknown field; and for each of `more`.
 */
export function itRejectsInvalidPaging(twin: ListTwin, more: [body: unknown, location: string][]): void {
  const workspace = useWorkspace(twin.api);
  itRejectsEach(twin.api, twin.procedure, () => workspace.rootKey, [
    [{ limit: 0 }, 'body.limit'],
    [{ limit: 101 }, 'body.limit'],
    [{ cursor: '' }, 'body.cursor'],
    [{ search: 's'.repeat(257) }, 'body.search'],
    [{ extra: 1 }, 'body.extra'],
    ...more,
  ]);
}

/** 403 naming the read grant of the kind when the root key holds only `others`. */
export function itNeedsTheReadGrant(twin: ListTwin, others: string[]): void {
  it(`without ${twin.grant('read')}, naming it`, async () => {
    const workspace = await twin.api.workspace();
    const { rootKey } = await workspace.rootKeyWith(others);
    expectMissingPermissions(await twin.list({}, rootKey), twin.grant('read'));
  });
}

/** 200 to a root key holding exactly the read grant of the kind, and nothing else. */
export function itListsWithExactlyTheReadGrant(twin: ListTwin): void {
  it(`with exactly ${twin.grant('read')}`, async () => {
    const workspace = await twin.api.workspace();
    const { rootKey } = await workspace.rootKeyWith([twin.grant('read')]);
    expect((await twin.list({}, rootKey)).status).toBe(200);
  });
}

/** Only the caller's, whatever the search; another workspace's cursor is a 400, never a way into its rows. */
export function itListsOnlyTheCallers(twin: ListTwin): void {
  it(`lists only the caller's ${twin.kind}s, whatever the search`, async () => {
    const mine = await twin.api.workspace();
    const theirs = await twin.api.workspace();
    const own = await twin.create(mine.rootKey, 'iso-shared');
    await twin.create(theirs.rootKey, 'iso-shared');
    await twin.create(theirs.rootKey, 'iso-theirs');
    expect(await twin.walkIds(mine.rootKey, {})).toEqual([own]);
    expect(await twin.walkIds(mine.rootKey, { search: 'iso' })).toEqual([own]);
  });

  it("another workspace's cursor is a 400, never a way into its rows", async () => {
    const mine = await twin.api.workspace();
    const theirs = await twin.api.workspace();
    await twin.create(theirs.rootKey, 'c-1');
    await twin.create(theirs.rootKey, 'c-2');
    const page = await twin.list({ limit: 1 }, theirs.rootKey);
    expectInvalidInput(await twin.list({ cursor: page.body.pagination.cursor }, mine.rootKey), 'body.cursor');
  });
}

import { beforeAll, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem, expectRbacNotFound, itRejectsEach } from './assertions.ts';
import { keyPermissionSlugs, keyRoleNames } from './dbInspect.ts';
import { createRolesWith, keyOfAnotherWorkspace, type NewKeyInput, useWorkspaceWithApi } from './fixtures.ts';
import type { Api } from './harness.ts';
import type { InputOf } from './procedures.ts';
import { verifyCode } from './rbac.ts';

// keys.{add,remove,set}{Roles,Permissions} take the same input, `{ keyId, roles | permissions }`,
// and share their contract for 128-character names, root keys, update_key, unknown keys and
// other workspaces: those cases are written once here and each procedure's file calls them.

type KeyAccessProcedure =
  | 'keys.addRoles'
  | 'keys.removeRoles'
  | 'keys.setRoles'
  | 'keys.addPermissions'
  | 'keys.removePermissions'
  | 'keys.setPermissions';

/**
 * A procedure's test file: its workspace, API and keys, the `roles` it starts with (each with the
 * permission slugs it grants), and the procedure called by key and names.
 */
export function useKeyAccess<P extends KeyAccessProcedure>(
  api: Api,
  procedure: P,
  options: { roles?: Record<string, string[]> } = {},
) {
  const owner = useWorkspaceWithApi(api);
  const field = procedure.endsWith('Roles') ? 'roles' : 'permissions';
  const em = () => api.em();
  let roleIds: Record<string, string> = {};
  beforeAll(async () => {
    roleIds = await createRolesWith(api, owner.workspace.workspaceId, options.roles ?? {});
  });
  return {
    api,
    procedure,
    field,
    em,
    get workspace() {
      return owner.workspace;
    },
    get apiId() {
      return owner.apiId;
    },
    newKey: owner.newKey,
    /** The ids of the roles the file started with, by name. */
    roleId: (name: string) => roleIds[name] ?? '',
    /** The procedure's input for this key and these role names or permission slugs. */
    input: (keyId: string, names: string[]) => ({ keyId, [field]: names }) as InputOf<P>,
    send: (input: InputOf<P>, rootKey = owner.workspace.rootKey) => api.call(procedure, input, rootKey),
    /** The key's roles or direct permissions as stored, by name. */
    attached: (keyId: string) => (field === 'roles' ? keyRoleNames(em(), keyId) : keyPermissionSlugs(em(), keyId)),
    /** The permission slugs `names` of the procedure's kind grant: a permission itself, a role those the file gave it. */
    grantsOf: (names: string[]) => (field === 'roles' ? names.flatMap((name) => options.roles?.[name] ?? []) : names),
    /** What a key created with `input` holds of the procedure's kind, as `attached` reads it. */
    held: (input: NewKeyInput) => [...(input[field] ?? [])].sort(),
    verify: (key: string, permissions: string) => verifyCode(api, owner.workspace.rootKey, key, permissions),
    keyOfAnotherWorkspace: () => keyOfAnotherWorkspace(api),
  };
}

type KeyAccess<P extends KeyAccessProcedure> = ReturnType<typeof useKeyAccess<P>>;

/**
 * 200 for a role name or slug of 128 characters, the most permissions.createRole and
 * permissions.createPermission take. A remove first adds the name beside `kept`, which stays.
 */
export function itTakesNamesOf128Characters<P extends KeyAccessProcedure>(
  access: KeyAccess<P>,
  letter: string,
  kept: string,
) {
  const creator = access.field === 'roles' ? 'permissions.createRole' : 'permissions.createPermission';
  const noun = access.field === 'roles' ? 'role name' : 'slug';
  it(`takes a ${noun} of 128 characters, as ${creator} does`, async () => {
    const name = letter.repeat(128);
    const { rootKey } = access.workspace;
    if (access.field === 'roles')
      expect((await access.api.call('permissions.createRole', { name }, rootKey)).status).toBe(200);
    const { keyId } = await access.newKey();
    if (access.procedure.startsWith('keys.remove')) {
      const adder = access.field === 'roles' ? 'keys.addRoles' : 'keys.addPermissions';
      expect(
        (await access.api.call(adder, { keyId, [access.field]: [name, kept] } as InputOf<typeof adder>, rootKey))
          .status,
      ).toBe(200);
      expect((await access.send(access.input(keyId, [name]))).status).toBe(200);
      expect(await access.attached(keyId)).toEqual([kept]);
    } else {
      expect((await access.send(access.input(keyId, [name]))).status).toBe(200);
      expect(await access.attached(keyId)).toEqual([name]);
    }
  });
}

/** Idempotent: `names` with a repeat, then in reverse order, answer the same, each of `names` once. */
export function itIsIdempotent<P extends KeyAccessProcedure>(access: KeyAccess<P>, names: string[]) {
  it('is idempotent: the same names again, repeated or reordered, change nothing', async () => {
    const { keyId } = await access.newKey();
    const first = await access.send(access.input(keyId, [...names, ...names.slice(0, 1)]));
    const again = await access.send(access.input(keyId, [...names].reverse()));
    expect(first.status).toBe(200);
    // An answer lists roles by name, permissions by slug.
    const answered = first.body.data as { name: string; slug?: string }[];
    expect(answered.map((item) => item.slug ?? item.name)).toEqual([...names].sort());
    expect(again.body.data).toEqual(first.body.data);
  });
}

/**
 * Right after the procedure gives a key holding `holds` the `names` (of its kind), verification
 * follows at once: what the key no longer holds stops verifying, what it newly holds verifies. A
 * change reaches the cache at once, so the key is verified before the change, to cache it.
 */
export function itShowsInVerificationAtOnce<P extends KeyAccessProcedure>(
  access: KeyAccess<P>,
  title: string,
  request: { holds: string[]; names: string[] },
) {
  const { holds, names } = request;
  const verb = access.procedure.slice('keys.'.length, 'keys.'.length + 3);
  const result =
    verb === 'set' ? names : verb === 'add' ? [...holds, ...names] : holds.filter((name) => !names.includes(name));
  const before = access.grantsOf(holds);
  const after = access.grantsOf(result);
  const lost = before.filter((slug) => !after.includes(slug));
  const gained = after.filter((slug) => !before.includes(slug));
  if (lost.length + gained.length === 0) throw new Error(`${title}: the change gains and loses no permission`);
  const [query, code] = lost[0] ? [lost[0], 'VALID'] : [gained[0] ?? '', 'INSUFFICIENT_PERMISSIONS'];
  it(title, async () => {
    const { keyId, key } = await access.newKey({ [access.field]: holds });
    // Twice: the first read may race the NOTIFY of the key's creation and not be cached.
    expect(await access.verify(key, query)).toBe(code);
    expect(await access.verify(key, query)).toBe(code);
    await access.send(access.input(keyId, names));
    for (const slug of lost) expect(await access.verify(key, slug)).toBe('INSUFFICIENT_PERMISSIONS');
    for (const slug of gained) expect(await access.verify(key, slug)).toBe('VALID');
  });
}

/**
 * 400 for what none of them takes: no keyId, no roles or permissions, more than a key may hold
 * (100 roles, 1000 direct permissions), a name of 129 characters, and for add and remove an empty
 * list (set clears with it); then for each of `more`. Each names the location of what is wrong.
 */
export function itRejectsInvalidInput<P extends KeyAccessProcedure>(
  access: KeyAccess<P>,
  more: [body: Record<string, unknown>, location: string][],
) {
  const { field } = access;
  const location = `body.${field}`;
  const most = field === 'roles' ? 100 : 1000;
  const emptyList: typeof more = access.procedure.startsWith('keys.set')
    ? []
    : [[{ keyId: 'key_x', [field]: [] }, location]];
  itRejectsEach(access.api, access.procedure, () => access.workspace.rootKey, [
    [{ [field]: ['a'] }, 'body.keyId'],
    [{ keyId: 'key_x' }, location],
    [{ keyId: 'key_x', [field]: Array.from({ length: most + 1 }, (_, i) => `n${i}`) }, location],
    [{ keyId: 'key_x', [field]: ['n'.repeat(129)] }, `${location}[0]`],
    ...emptyList,
    ...more,
  ]);
}

/**
 * 403 naming update_key when the root key has only `grants`, and the key keeps what it `holds`:
 * the API's own when the grants may read its keys, else the wildcard, since a key the root key may
 * not read tells it nothing, not even its API (docs/contract.md#authorization-order).
 */
export function itNeedsUpdateKey<P extends KeyAccessProcedure>(
  access: KeyAccess<P>,
  title: string,
  request: { grants: string[]; holds: NewKeyInput; names: string[] },
) {
  it(title, async () => {
    const { keyId } = await access.newKey(request.holds);
    const { rootKey } = await access.workspace.rootKeyWith(request.grants);
    const readsKeys = request.grants.some((grant) => /^apis?\.\*\.read_key$/.test(grant));
    expectMissingPermissions(
      await access.send(access.input(keyId, request.names), rootKey),
      readsKeys ? `api.${access.apiId}.update_key` : 'api.*.update_key',
    );
    expect(await access.attached(keyId)).toEqual(access.held(request.holds));
  });
}

/**
 * The same 403 for a key that does not exist as for a key of an API the root key may not touch,
 * to a root key that may update keys of its own API only: neither answer tells whether the key
 * exists (docs/contract.md#authorization-order).
 */
export function itAnswersKeysOutOfReachAlike<P extends KeyAccessProcedure>(
  access: KeyAccess<P>,
  request: { grants: string[]; names: string[]; missing: string[] },
) {
  it('for a key that does not exist and one of another API alike, to a root key of one API', async () => {
    const { keyId } = await access.newKey();
    const { rootKey } = await access.workspace.rootKeyWith([
      'api.api_mine.update_key',
      'api.api_mine.read_key',
      ...request.grants,
    ]);
    const existing = await access.send(access.input(keyId, request.names), rootKey);
    const missing = await access.send(access.input('key_missing', request.names), rootKey);
    expect(existing.body.error).toEqual(missing.body.error);
    expectMissingPermissions(missing, ...request.missing);
  });
}

/**
 * 200 with a root key holding exactly the API's update_key and `grants`; `existing` names what
 * another key is made with first, so that those names exist in the workspace.
 */
export function itSucceedsWithExactly<P extends KeyAccessProcedure>(
  access: KeyAccess<P>,
  title: string,
  request: { grants: string[]; holds: NewKeyInput; names: string[]; existing?: NewKeyInput; leaves?: string[] },
) {
  it(title, async () => {
    if (request.existing) await access.newKey(request.existing);
    const { keyId } = await access.newKey(request.holds);
    const { rootKey } = await access.workspace.rootKeyWith([`api.${access.apiId}.update_key`, ...request.grants]);
    expect((await access.send(access.input(keyId, request.names), rootKey)).status).toBe(200);
    if (request.leaves) expect(await access.attached(keyId)).toEqual(request.leaves);
  });
}

/** 404 key_not_found for a key id that no key has. */
export function itAnswersKeyNotFound<P extends KeyAccessProcedure>(access: KeyAccess<P>, names: string[]) {
  it('for a key that does not exist', async () => {
    expectProblem(await access.send(access.input('key_missing', names)), 404, 'service/data/key_not_found');
  });
}

/** 404 for another workspace's root key, and the key keeps what it `holds`. */
export function itHidesTheKeyFromOtherWorkspaces<P extends KeyAccessProcedure>(
  access: KeyAccess<P>,
  request: { holds: NewKeyInput; names: string[] },
) {
  it("cannot touch another workspace's key (404)", async () => {
    const { keyId } = await access.newKey(request.holds);
    const intruder = await access.api.workspace();
    expect((await access.send(access.input(keyId, request.names), intruder.rootKey)).status).toBe(404);
    expect(await access.attached(keyId)).toEqual(access.held(request.holds));
  });
}

/** 404 for a key that does not exist, before any other missing permission, to a root key that may update every API's keys. */
export function itAnswersAMissingKeyFirst<P extends KeyAccessProcedure>(access: KeyAccess<P>, names: string[]) {
  it('for a key that does not exist, before any other missing permission, to a root key of every API', async () => {
    const { rootKey } = await access.workspace.rootKeyWith(['api.*.update_key']);
    expectProblem(await access.send(access.input('key_missing', names), rootKey), 404, 'service/data/key_not_found');
  });
}

/** 404 naming the last of `names`, which the workspace does not have; the key keeps what it `holds`. */
export function itAnswersAMissingName<P extends KeyAccessProcedure>(
  access: KeyAccess<P>,
  title: string,
  request: { holds: NewKeyInput; names: string[] },
) {
  it(title, async () => {
    const { keyId } = await access.newKey(request.holds);
    const reply = await access.send(access.input(keyId, request.names));
    expectRbacNotFound(reply, access.field === 'roles' ? 'role' : 'permission', request.names.at(-1));
    expect(await access.attached(keyId)).toEqual(access.held(request.holds));
  });
}

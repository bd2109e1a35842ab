import { expect, it } from 'vitest';
import { expectRbacNotFound } from './assertions.ts';
import { type Api, createTestKey, type Reply, type TestWorkspace } from './harness.ts';
import type { InputOf } from './procedures.ts';

// What the permissions.* tests share: keys holding roles or permissions, and their verification.

export interface CreatedKey {
  keyId: string;
  key: string;
}

export function createKeyWith(
  api: Api,
  rootKey: string,
  apiId: string,
  grants: { roles?: string[]; permissions?: string[] },
): Promise<CreatedKey> {
  return createTestKey(api, rootKey, { apiId, ...grants });
}

/** The id a create answered, failing the test on any answer but a 200. */
async function createdId<TData>(reply: Promise<Reply<TData>>, id: (data: TData) => string): Promise<string> {
  const answer = await reply;
  if (answer.status !== 200) throw new Error(`create failed: ${JSON.stringify(answer.body)}`);
  return id(answer.body.data);
}

/** Creates a permission through the public procedure and answers its id. */
export const createTestPermission = (api: Api, rootKey: string, input: InputOf<'permissions.createPermission'>) =>
  createdId(api.call('permissions.createPermission', input, rootKey), (data) => data.permissionId);

/** Creates a role through the public procedure and answers its id. */
export const createTestRole = (api: Api, rootKey: string, input: InputOf<'permissions.createRole'>) =>
  createdId(api.call('permissions.createRole', input, rootKey), (data) => data.roleId);

/** The verification code for this permissions query. */
export async function verifyCode(api: Api, rootKey: string, key: string, permissions: string): Promise<string> {
  const reply = await api.call('keys.verifyKey', { key, permissions }, rootKey);
  expect(reply.status).toBe(200);
  return reply.body.data.code;
}

/**
 * Verifies twice, so the key is in the node's cache afterwards (the first read may race the NOTIFY
 * of the key's creation and not be cached), and answers the second code.
 */
export async function verifyWarm(api: Api, rootKey: string, key: string, permissions: string): Promise<string> {
  await verifyCode(api, rootKey, key, permissions);
  return verifyCode(api, rootKey, key, permissions);
}

/**
 * 403, not 404, for a role or permission that does not exist, to a root key holding only `grants`:
 * the permission is checked before anything is looked up (docs/contract.md#authorization-order).
 */
export function itRefusesBeforeTheLookup(
  kind: 'role' | 'permission',
  workspace: () => TestWorkspace,
  grants: string[],
  send: (id: string, rootKey: string) => Promise<{ status: number }>,
): void {
  it(`before the lookup: 403, not 404, for a ${kind} that does not exist`, async () => {
    const { rootKey } = await workspace().rootKeyWith(grants);
    expect((await send(`${kind === 'role' ? 'role' : 'perm'}_doesnotexist`, rootKey)).status).toBe(403);
  });
}

/**
 * The 400 cases of a field naming one role or permission by id, name or slug: missing, empty, over
 * 128 characters, with a space; and an unknown field beside a `valid` one.
 */
export function nameFieldCases(field: string, valid: string): [body: unknown, location: string][] {
  const location = `body.${field}`;
  return [
    [{}, location],
    [{ [field]: '' }, location],
    [{ [field]: 'n'.repeat(129) }, location],
    [{ [field]: 'has space' }, location],
    [{ [field]: valid, extra: 1 }, 'body.extra'],
  ];
}

/** A 404 for each of `names`, ids or names no role or permission of the workspace has. */
export function itAnswersNotFoundFor(
  kind: 'role' | 'permission',
  names: string[],
  send: (name: string) => Promise<Reply<unknown>>,
): void {
  it.each(names)('for %s', async (name) => expectRbacNotFound(await send(name), kind));
}

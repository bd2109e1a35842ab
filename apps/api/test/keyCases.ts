import type { EntityManager } from '@keyplane/db';
import { it } from 'vitest';
import { expectProblem } from './assertions.ts';
import { storedKey } from './dbInspect.ts';
import type { Api, TestWorkspace } from './harness.ts';
import type { ProcedurePath } from './procedures.ts';

// What the contract tests of the keys.* procedures share. They check the fields they have in
// common with one schema each (packages/procedures/src/schemas.ts): what those schemas reject is
// listed once here.

/**
 * Values an id field (keyId, apiId: resourceIdSchema, 3 to 255 letters, digits and underscores)
 * rejects, labelled, for itRejectsField (undefined: the field left out).
 */
export const INVALID_RESOURCE_IDS: [label: string, value: unknown][] = [
  ['missing', undefined],
  ['too short', 'ab'],
  ['too long', 'k'.repeat(256)],
  ['with a forbidden character', 'key-1'],
  ['with a space', 'key 1'],
  ['of the wrong type', 7],
  ['that is a list', ['key_abc']],
];

/** Field values keys.createKey and keys.updateKey both reject: the key's own fields, by one schema each. */
export const INVALID_KEY_FIELDS: [field: string, value: unknown][] = [
  ['name', ''],
  ['name', 'n'.repeat(256)],
  ['externalId', ''],
  ['externalId', 'has space'],
  ['meta', 'text'],
  ['meta', Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]))],
  ['expires', -1],
  ['expires', 4102444800001],
  ['ratelimits', Array.from({ length: 51 }, (_, i) => ({ name: `limit-${i}`, limit: 1, duration: 1000 }))],
  ['enabled', 'yes'],
  ['roles', Array.from({ length: 101 }, (_, i) => `r${i}`)],
  ['permissions', Array.from({ length: 1001 }, (_, i) => `p${i}`)],
];

/** A key's name, meta, expires and enabled as its row holds them, named as keys.createKey and keys.updateKey take them. */
export async function storedKeyFields(em: EntityManager, keyId: string) {
  const row = await storedKey(em, keyId);
  return { name: row?.name, meta: row?.meta, expires: row?.expires_ms, enabled: row?.enabled };
}

/** The key's row, failing the test when there is none. */
export async function storedKeyRow(em: EntityManager, keyId: string) {
  const row = await storedKey(em, keyId);
  if (!row) throw new Error(`no key ${keyId}`);
  return row;
}

/** What keys.verifyKey answers for `key`, asked with `rootKey`. */
export async function verification(api: Api, rootKey: string, key: string) {
  return (await api.call('keys.verifyKey', { key }, rootKey)).body.data;
}

/**
 * 404 key_not_found from `procedure` for a key id no key has: to the root key of `owner`'s
 * workspace, and to one holding only `everyApi` (the procedure's grant on every API), which passes
 * the permission check before the lookup (docs/contract.md#authorization-order).
 */
export function itAnswersAMissingKeyNotFound(
  api: Api,
  owner: { workspace: TestWorkspace },
  procedure: ProcedurePath,
  everyApi: string,
): void {
  const send = (rootKey: string) => api.post(procedure, { keyId: 'key_doesnotexist' }, rootKey);
  it('for a key that does not exist', async () => {
    expectProblem(await send(owner.workspace.rootKey), 404, 'service/data/key_not_found');
  });

  it(`for a key that does not exist, to a root key holding only ${everyApi}`, async () => {
    const { rootKey } = await owner.workspace.rootKeyWith([everyApi]);
    expectProblem(await send(rootKey), 404, 'service/data/key_not_found');
  });
}

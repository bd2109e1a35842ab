import type { EntityManager } from '@keyplane/db';
import { expect, it } from 'vitest';
import { postOn } from './appVariants.ts';
import { expectProblem } from './assertions.ts';
import { storedKey } from './dbInspect.ts';
import type { NewKeyInput } from './fixtures.ts';
import { type Api, createTestApi, createTestKey, ERRORS_BASE_URL, type TestWorkspace } from './harness.ts';
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

/**
 * How a procedure that may answer keys decrypted (keys.getKey, apis.listKeys) is asked about a
 * key: the `input` naming it (by its id or its API's), and the `grants` that let a root key read it.
 */
export interface DecryptingRead {
  procedure: 'keys.getKey' | 'apis.listKeys';
  input: (key: { apiId: string; keyId: string }) => Record<string, unknown>;
  grants: (apiId: string) => string[];
}

/** A key of a new API in the workspace of `rootKey`, with the API's id; recoverable where the API encrypts. */
async function keyOfNewApi(api: Api, rootKey: string, options: { encrypting?: boolean; recoverable?: boolean } = {}) {
  const apiId = await createTestApi(api, rootKey, options.encrypting ? { encryption: { enabled: true } } : {});
  return { apiId, ...(await createTestKey(api, rootKey, { apiId, recoverable: options.recoverable })) };
}

/**
 * 412 for `decrypt: true` in a workspace without a vault (before the decrypt permission is
 * checked), on a server without a master key, and for an API without encryption; without
 * `decrypt`, a workspace without a vault reads its keys.
 */
export function itDecryptsOnlyWhereItCan(api: Api, workspace: () => TestWorkspace, read: DecryptingRead): void {
  const decrypting = (key: { apiId: string; keyId: string }) => ({ ...read.input(key), decrypt: true });

  it('decrypting in a workspace without a vault, before the decrypt permission', async () => {
    const noVault = await api.workspace({ vault: false });
    const key = await keyOfNewApi(api, noVault.rootKey, { encrypting: true });
    const { rootKey } = await noVault.rootKeyWith(read.grants(key.apiId));
    const reply = await api.post(read.procedure, decrypting(key), rootKey);
    expect(reply.status).toBe(412);
    expect(reply.body.error).toMatchObject({
      type: `${ERRORS_BASE_URL}/service/application/precondition_failed`,
      detail: 'The vault is not set up for this workspace, so keys cannot be stored recoverably or decrypted.',
    });
  });

  it('decrypting on a server without a master key', async () => {
    const { rootKey } = workspace();
    const key = await keyOfNewApi(api, rootKey, { encrypting: true, recoverable: true });
    expect((await postOn(api, { masterKey: false }, read.procedure, decrypting(key), rootKey)).status).toBe(412);
  });

  it('decrypting the keys of an API without encryption', async () => {
    const { rootKey } = workspace();
    const reply = await api.post(read.procedure, decrypting(await keyOfNewApi(api, rootKey)), rootKey);
    expect(reply.status).toBe(412);
    expect(reply.body.error.detail).toBe(
      'The requested API does not support key encryption: encryption is not enabled for it.',
    );
  });

  it('not without decrypt', async () => {
    const noVault = await api.workspace({ vault: false });
    const key = await keyOfNewApi(api, noVault.rootKey);
    expect((await api.post(read.procedure, read.input(key), noVault.rootKey)).status).toBe(200);
  });
}

/** 404 to another workspace's root key holding every permission, with and without `decrypt`. */
export function itHidesKeysFromOtherWorkspaces(api: Api, workspace: () => TestWorkspace, read: DecryptingRead): void {
  it('not to another workspace, even with every permission, with or without decrypt (404)', async () => {
    const key = await keyOfNewApi(api, workspace().rootKey, { encrypting: true, recoverable: true });
    const intruder = await api.workspace({ vault: true });
    expect((await api.post(read.procedure, read.input(key), intruder.rootKey)).status).toBe(404);
    expect((await api.post(read.procedure, { ...read.input(key), decrypt: true }, intruder.rootKey)).status).toBe(404);
  });
}

/**
 * A key input setting every field, for tests that read a key back whole. `tag` is its prefix and
 * names its role, `<tag>-admin` (which the caller creates), and its identity's externalId, `<tag>_user`.
 */
export function everyKeyField(tag: string): NewKeyInput {
  return {
    prefix: tag,
    name: 'Acme',
    meta: { plan: 'pro', seats: 3 },
    expires: 4102444800000,
    permissions: ['documents.read', 'documents.write'],
    roles: [`${tag}-admin`],
    externalId: `${tag}_user`,
    credits: { remaining: 10, refill: { interval: 'monthly', amount: 100, refillDay: 31 } },
    ratelimits: [{ name: 'per-second', limit: 5, duration: 1000, autoApply: true }],
  };
}

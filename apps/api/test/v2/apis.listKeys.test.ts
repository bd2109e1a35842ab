import { createKeyMigration, rows, sql } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem, invalidInputCheck } from '../assertions.ts';
import { createRole, grantRolePermission } from '../dbInspect.ts';
import { type NewKeyInput, useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi, createTestKey, type ReplyOf } from '../harness.ts';
import {
  type DecryptingRead,
  everyKeyField,
  itDecryptsOnlyWhereItCan,
  itHidesKeysFromOtherWorkspaces,
} from '../keyCases.ts';
import type { InputOf } from '../procedures.ts';

const { api, workspace } = useApiWithWorkspace({ vault: true });

const listKeys = (body: InputOf<'apis.listKeys'>, rootKey = workspace.rootKey) =>
  api.call('apis.listKeys', body, rootKey);
const decryptingRead: DecryptingRead = {
  procedure: 'apis.listKeys',
  input: ({ apiId }) => ({ apiId }),
  grants: (apiId) => [`api.${apiId}.read_key`, `api.${apiId}.read_api`],
};

const newKey = (apiId: string, body: NewKeyInput = {}, rootKey = workspace.rootKey) =>
  createTestKey(api, rootKey, { apiId, ...body });

/** Every page of the API's keys, following cursors; `between` runs after each page but the last. */
async function walk(body: InputOf<'apis.listKeys'>, between: () => Promise<void> = async () => {}) {
  const pages: ReplyOf<'apis.listKeys'>['body'][] = [];
  let cursor: string | undefined;
  do {
    const page = await listKeys({ ...body, ...(cursor ? { cursor } : {}) });
    expect(page.status).toBe(200);
    pages.push(page.body);
    cursor = page.body.pagination.cursor;
    expect(cursor !== undefined).toBe(page.body.pagination.hasMore);
    if (cursor) await between();
  } while (cursor);
  return pages;
}

/** `count` bare keys straight in SQL: the page size bounds need more keys than are quick to create one by one. */
async function seedKeys(apiId: string, count: number) {
  await rows(
    api.em(),
    sql`insert into keys (id, workspace_id, api_id, hash, start, created_at)
        select 'key_seed' || ${apiId} || lpad(n::text, 5, '0'), ${workspace.workspaceId}, ${apiId},
               encode(sha256(convert_to(${apiId} || n::text, 'UTF8')), 'hex'), 'sd_abcd', now()
        from generate_series(1, ${count}::int) n`,
  );
}

describe('200', () => {
  it('answers { meta, data, pagination } over /v2, with an empty last page', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const reply = await listKeys({ apiId });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['data', 'meta', 'pagination']);
    expect(reply.body.meta.requestId).toMatch(/^req_/);
    expect(reply.body.data).toEqual([]);
    expect(reply.body.pagination).toEqual({ hasMore: false });
  });

  it('shows each key exactly as keys.getKey does', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const roleId = await createRole(api.em(), workspace.workspaceId, 'listkeys-admin');
    await grantRolePermission(api.em(), workspace.workspaceId, roleId, 'billing.read');
    const rich = await newKey(apiId, everyKeyField('listkeys'));
    const bare = await newKey(apiId, { enabled: false });
    const reply = await listKeys({ apiId });
    expect(reply.status).toBe(200);
    const expected = await Promise.all(
      [rich, bare].map(async ({ keyId }) => (await api.post('keys.getKey', { keyId }, workspace.rootKey)).body.data),
    );
    expect(reply.body.data).toEqual(expected);
    expect(reply.body.data[0]).toMatchObject({
      keyId: rich.keyId,
      permissions: ['billing.read', 'documents.read', 'documents.write'],
      roles: ['listkeys-admin'],
      identity: { externalId: 'listkeys_user' },
      credits: { remaining: 10 },
      ratelimits: [expect.objectContaining({ name: 'per-second', limit: 5, duration: 1000 })],
    });
    expect(reply.body.data[1]).toMatchObject({ keyId: bare.keyId, enabled: false });
  });

  it('pages by limit in id order, with an opaque cursor', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const created = [];
    for (let i = 0; i < 5; i++) created.push((await newKey(apiId)).keyId);
    const first = await listKeys({ apiId, limit: 2 });
    expect(first.body.data.map((key) => key.keyId)).toEqual(created.slice(0, 2));
    expect(first.body.pagination.hasMore).toBe(true);
    expect(first.body.pagination.cursor).not.toContain('key_');
    const pages = await walk({ apiId, limit: 2 });
    expect(pages.map((page) => page.data.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((page) => page.data.map((key) => key.keyId))).toEqual(created);
  });

  it('visits every key exactly once while keys are added between pages, new ones at the end', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const existing = new Set<string>();
    for (let i = 0; i < 20; i++) existing.add((await newKey(apiId)).keyId);
    const added: string[] = [];
    const pages = await walk({ apiId, limit: 3 }, async () => {
      added.push((await newKey(apiId)).keyId, (await newKey(apiId)).keyId);
    });
    const seen = pages.flatMap((page) => page.data.map((key) => key.keyId));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((keyId) => existing.has(keyId))).toEqual([...existing]);
    expect(added.length).toBeGreaterThan(0);
    expect(seen.slice(existing.size)).toEqual(added);
    expect([...seen].sort()).toEqual(seen);
  });

  it('ends a page early once its keys would take more than 2 MiB, and a walk still sees them all', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const keyIds = [];
    for (let index = 0; index < 4; index++) keyIds.push((await newKey(apiId)).keyId);
    // 900 kB of meta each (written directly: a request body is smaller here), the last one none.
    await rows(
      api.em(),
      sql`update keys set meta = jsonb_build_object('blob', repeat('x', 900000)) where id = any(${keyIds.slice(0, 3)}::text[])`,
    );
    const pages = await walk({ apiId });
    expect(pages.map((page) => page.data.map((key) => key.keyId))).toEqual([keyIds.slice(0, 2), keyIds.slice(2)]);
  });

  it('answers 100 keys by default, and at most limit', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    await seedKeys(apiId, 101);
    const full = await listKeys({ apiId });
    expect(full.body.data).toHaveLength(100);
    expect(full.body.pagination.hasMore).toBe(true);
    const rest = await listKeys({ apiId, cursor: full.body.pagination.cursor });
    expect(rest.body.data).toHaveLength(1);
    expect(rest.body.pagination).toEqual({ hasMore: false });
    expect((await listKeys({ apiId, limit: 1 })).body.data).toHaveLength(1);
    expect((await listKeys({ apiId, limit: 100 })).body.data).toHaveLength(100);
  });

  it('answers a page of the exact limit with hasMore false when nothing follows', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    await seedKeys(apiId, 3);
    const reply = await listKeys({ apiId, limit: 3 });
    expect(reply.body.data).toHaveLength(3);
    expect(reply.body.pagination).toEqual({ hasMore: false });
  });

  it('filters by externalId; an unknown externalId gives an empty list', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const alice = [(await newKey(apiId, { externalId: 'lk_alice' })).keyId];
    await newKey(apiId, { externalId: 'lk_bob' });
    await newKey(apiId);
    alice.push((await newKey(apiId, { externalId: 'lk_alice' })).keyId);
    const reply = await listKeys({ apiId, externalId: 'lk_alice' });
    expect(reply.body.data.map((key) => key.keyId)).toEqual(alice);
    expect(reply.body.data.every((key) => (key.identity as { externalId: string }).externalId === 'lk_alice')).toBe(
      true,
    );
    const paged = await walk({ apiId, externalId: 'lk_alice', limit: 1 });
    expect(paged.flatMap((page) => page.data.map((key) => key.keyId))).toEqual(alice);
    const unknown = await listKeys({ apiId, externalId: 'lk_nobody' });
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual([]);
    expect(unknown.body.pagination).toEqual({ hasMore: false });
  });

  it("filters by an externalId outside createKey's pattern, as keys.migrateKeys may create", async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const migrationId = await createKeyMigration(api.em(), workspace.workspaceId);
    const imported = await api.call(
      'keys.migrateKeys',
      { migrationId, apiId, keys: [{ hash: 'old-system-hash-1', externalId: 'alice@example.com' }] },
      workspace.rootKey,
    );
    expect(imported.status).toBe(200);
    const reply = await listKeys({ apiId, externalId: 'alice@example.com' });
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((key) => key.keyId)).toEqual(imported.body.data.migrated.map((key) => key.keyId));
  });

  it('searches (our addition) the name, id or start, case-insensitively, across pages', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const billing = (await newKey(apiId, { name: 'Billing service' })).keyId;
    await newKey(apiId, { name: 'search-web' });
    const billingBackup = (await newKey(apiId, { name: 'billing backup' })).keyId;
    const byName = await walk({ apiId, search: 'BILLING', limit: 1 });
    expect(byName.flatMap((page) => page.data.map((key) => key.keyId))).toEqual([billing, billingBackup]);
    const prefixed = await newKey(apiId, { prefix: 'srch' });
    expect((await listKeys({ apiId, search: prefixed.keyId })).body.data.map((key) => key.keyId)).toEqual([
      prefixed.keyId,
    ]);
    expect((await listKeys({ apiId, search: 'srch_' })).body.data.map((key) => key.keyId)).toEqual([prefixed.keyId]);
    expect((await listKeys({ apiId, search: 'nothing-like-it' })).body.data).toEqual([]);
  });

  it("lists only this API's keys", async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const other = await createTestApi(api, workspace.rootKey);
    const mine = await newKey(apiId);
    await newKey(other, { externalId: 'lk_shared' });
    expect((await listKeys({ apiId })).body.data.map((key) => key.keyId)).toEqual([mine.keyId]);
    expect((await listKeys({ apiId, externalId: 'lk_shared' })).body.data).toEqual([]);
  });

  it('leaves deleted keys out', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const kept = await newKey(apiId);
    const deleted = await newKey(apiId);
    const permanent = await newKey(apiId);
    expect((await api.post('keys.deleteKey', { keyId: deleted.keyId }, workspace.rootKey)).status).toBe(200);
    const gone = await api.post('keys.deleteKey', { keyId: permanent.keyId, permanent: true }, workspace.rootKey);
    expect(gone.status).toBe(200);
    expect((await listKeys({ apiId })).body.data.map((key) => key.keyId)).toEqual([kept.keyId]);
  });

  it('decrypts recoverable keys only, and only with decrypt', async () => {
    const apiId = await createTestApi(api, workspace.rootKey, { encryption: { enabled: true } });
    const recoverable = await newKey(apiId, { recoverable: true, prefix: 'rec' });
    const plain = await newKey(apiId);
    const decrypted = await listKeys({ apiId, decrypt: true });
    expect(decrypted.status).toBe(200);
    expect(decrypted.body.data.map((key) => [key.keyId, key.plaintext])).toEqual([
      [recoverable.keyId, recoverable.key],
      [plain.keyId, undefined],
    ]);
    expect(decrypted.body.data[1]).not.toHaveProperty('plaintext');
    const listed = await listKeys({ apiId });
    expect(listed.body.data.some((key) => 'plaintext' in key)).toBe(false);
  });

  it.each([
    [['api.API_ID.read_key', 'api.API_ID.read_api']],
    [['api.*.read_key', 'apis.*.read_api']],
    [['apis.API_ID.read_key', 'api.*.read_api']],
  ])('with the grants %j', async (grants) => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { keyId } = await newKey(apiId);
    const { rootKey } = await workspace.rootKeyWith(grants.map((grant) => grant.replace('API_ID', apiId)));
    const reply = await listKeys({ apiId }, rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((key) => key.keyId)).toEqual([keyId]);
  });

  it('decrypts with read_key, read_api and decrypt_key for the API', async () => {
    const apiId = await createTestApi(api, workspace.rootKey, { encryption: { enabled: true } });
    const { key } = await newKey(apiId, { recoverable: true });
    const { rootKey } = await workspace.rootKeyWith([
      `api.${apiId}.read_key`,
      `api.${apiId}.read_api`,
      `api.${apiId}.decrypt_key`,
    ]);
    expect((await listKeys({ apiId, decrypt: true }, rootKey)).body.data[0]?.plaintext).toBe(key);
  });

  it('accepts revalidateKeysCache', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    await newKey(apiId);
    const reply = await listKeys({ apiId, revalidateKeysCache: true });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toHaveLength(1);
  });
});

describe('400', () => {
  const expectInvalid = invalidInputCheck(api, 'apis.listKeys', () => workspace.rootKey);

  it.each([[0], [101], [-1], [1.5], ['10']])('rejects the limit %j', async (limit) => {
    await expectInvalid({ apiId: 'api_whatever', limit }, 'body.limit');
  });

  it.each([
    ['missing', {}],
    ['too short', { apiId: 'ab' }],
    ['with a forbidden character', { apiId: 'api-1' }],
  ])('rejects an apiId %s', async (_, body) => {
    await expectInvalid(body, 'body.apiId');
  });

  it.each([
    ['decrypt', 'yes'],
    ['revalidateKeysCache', 1],
    ['externalId', ''],
    ['cursor', ''],
  ])('rejects a bad %s', async (field, value) => {
    await expectInvalid({ apiId: 'api_whatever', [field]: value }, `body.${field}`);
  });

  it('rejects unknown fields', async () => {
    await expectInvalid({ apiId: 'api_whatever', query: 'x' }, 'body.query');
  });

  it('rejects a cursor that was not made by the service', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    await seedKeys(apiId, 2);
    const { keyId } = (await listKeys({ apiId })).body.data[1] ?? { keyId: '' };
    // The reference product's cursor is a plain key id; ours is opaque and says where it came from.
    await expectInvalid({ apiId, cursor: keyId }, 'body.cursor');
    await expectInvalid({ apiId, cursor: 'not-a-cursor' }, 'body.cursor');
  });

  it('rejects a cursor from another workspace', async () => {
    const other = await api.workspace();
    const otherApi = await createTestApi(api, other.rootKey);
    await newKey(otherApi, {}, other.rootKey);
    await newKey(otherApi, {}, other.rootKey);
    const foreign = await listKeys({ apiId: otherApi, limit: 1 }, other.rootKey);
    const cursor = foreign.body.pagination.cursor;
    expect(cursor).toEqual(expect.any(String));
    const apiId = await createTestApi(api, workspace.rootKey);
    await expectInvalid({ apiId, cursor }, 'body.cursor');
  });
});

describe('403', () => {
  // The reference product masks these as 404; our contract never masks a 403.
  it('without read_api, naming it', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_key']);
    const reply = await listKeys({ apiId }, rootKey);
    expectMissingPermissions(reply, `api.${apiId}.read_api`);
  });

  it('without read_key, naming it', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    const reply = await listKeys({ apiId }, rootKey);
    expectMissingPermissions(reply, `api.${apiId}.read_key`);
  });

  it('without either, naming both', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith(['api.*.create_key']);
    const reply = await listKeys({ apiId }, rootKey);
    expectMissingPermissions(reply, `api.${apiId}.read_key`, `api.${apiId}.read_api`);
  });

  it('with the grants for another API only', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith(['api.api_other.read_key', 'api.api_other.read_api']);
    expect((await listKeys({ apiId }, rootKey)).status).toBe(403);
  });

  it('before the API is looked up: one that does not exist as one that does', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith(['api.*.create_key']);
    expectMissingPermissions(await listKeys({ apiId }, rootKey), `api.${apiId}.read_key`, `api.${apiId}.read_api`);
    const missing = await listKeys({ apiId: 'api_doesnotexist' }, rootKey);
    expectMissingPermissions(missing, 'api.api_doesnotexist.read_key', 'api.api_doesnotexist.read_api');
  });

  it('for the read grants before any decrypt check', async () => {
    const noVault = await api.workspace({ vault: false });
    const apiId = await createTestApi(api, noVault.rootKey);
    const { rootKey } = await noVault.rootKeyWith(['api.*.read_key']);
    expect((await listKeys({ apiId, decrypt: true }, rootKey)).status).toBe(403);
  });

  it('decrypting without decrypt_key, naming it', async () => {
    const apiId = await createTestApi(api, workspace.rootKey, { encryption: { enabled: true } });
    await newKey(apiId, { recoverable: true });
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.read_key`, `api.${apiId}.read_api`]);
    const reply = await listKeys({ apiId, decrypt: true }, rootKey);
    expectMissingPermissions(reply, `api.${apiId}.decrypt_key`);
  });

  it('for decrypt_key before the API encryption setting', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.read_key`, `api.${apiId}.read_api`]);
    expect((await listKeys({ apiId, decrypt: true }, rootKey)).status).toBe(403);
  });
});

describe('404', () => {
  it('for an API that does not exist', async () => {
    expectProblem(await listKeys({ apiId: 'api_doesnotexist' }), 404, 'service/data/api_not_found');
  });

  it('to a root key that may read it if it existed', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.api_doesnotexist.read_key', 'api.api_doesnotexist.read_api']);
    expect((await listKeys({ apiId: 'api_doesnotexist' }, rootKey)).status).toBe(404);
  });

  it('for a deleted API', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    await newKey(apiId);
    expect((await api.post('apis.deleteApi', { apiId }, workspace.rootKey)).status).toBe(200);
    expect((await listKeys({ apiId })).status).toBe(404);
  });
});

describe('412', () => {
  itDecryptsOnlyWhereItCan(api, () => workspace, decryptingRead);
});

describe('cross-workspace isolation', () => {
  itHidesKeysFromOtherWorkspaces(api, () => workspace, decryptingRead);

  it("lists none of another workspace's keys, not even through its identity's externalId", async () => {
    const intruder = await api.workspace();
    const intruderApi = await createTestApi(api, intruder.rootKey);
    const apiId = await createTestApi(api, workspace.rootKey);
    await newKey(apiId, { externalId: 'lk_victim' });
    const own = await newKey(intruderApi, {}, intruder.rootKey);
    expect((await listKeys({ apiId: intruderApi }, intruder.rootKey)).body.data.map((key) => key.keyId)).toEqual([
      own.keyId,
    ]);
    const filtered = await listKeys({ apiId: intruderApi, externalId: 'lk_victim' }, intruder.rootKey);
    expect(filtered.status).toBe(200);
    expect(filtered.body.data).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient } from '../httpServer.ts';
import { callInternal } from '../internal.ts';
import type { InputOf } from '../procedures.ts';
import { bootstrapRootKey, type ServerProcess, startServerProcess } from '../serverProcess.ts';

// A hostile tenant names things after the properties every JavaScript object has. Anything keyed
// by what a caller sends is looked up in a Map (docs/contract.md#field-bounds), so such a name is an
// ordinary name: stored and answered as sent, or refused with a 4xx naming the field, never a 500.
// On a real server process.

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

let server: ServerProcess;
let api: ReturnType<typeof httpClient>;
let rootKey: string;
let apiId: string;

const owner = {
  get apiId() {
    return apiId;
  },
  async newKey(input: Omit<InputOf<'keys.createKey'>, 'apiId'> = {}) {
    const reply = await api.call('keys.createKey', { apiId, ...input }, rootKey);
    if (reply.status !== 200) throw new Error(`createKey failed: ${JSON.stringify(reply.body)}`);
    return reply.body.data;
  },
};

beforeAll(async () => {
  server = await startServerProcess();
  api = httpClient(server.url);
  rootKey = bootstrapRootKey(server);
  apiId = (await api.call('apis.createApi', { name: 'named-like-properties' }, rootKey)).body.data.apiId;
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

/** An object's own fields, in a fixed order (PostgreSQL's jsonb keeps its own). */
const entriesOf = (object: Record<string, unknown> | null | undefined) =>
  Object.entries(object ?? {}).sort(([a], [b]) => a.localeCompare(b));

describe.each(NAMES)('%s', (name) => {
  it('as a segment of a root-key permission: 400 naming the permission, or granted as written', async () => {
    for (const permission of [`${name}.*.read_api`, `api.*.${name}`, `api.${name}.read_api`, name]) {
      const reply = await callInternal(api, 'rootKeys.createRootKey', { permissions: [permission] }, { rootKey });
      if (permission === `api.${name}.read_api`) {
        expect(reply.status).toBe(200);
        continue;
      }
      expect(reply.status).toBe(400);
      expect(reply.error?.message).toContain(`'${permission}' is not a root-key permission`);
    }
  });

  it('as a role name and a permission slug: created, attached and verified as written', async () => {
    const role = await api.call('permissions.createRole', { name, permissions: [name] }, rootKey);
    expect(role.status).toBe(200);
    expect((await api.call('permissions.getRole', { role: name }, rootKey)).body.data).toMatchObject({
      name,
      permissions: [expect.objectContaining({ slug: name })],
    });
    expect((await api.call('permissions.getPermission', { permission: name }, rootKey)).status).toBe(200);
    const created = await owner.newKey({ roles: [name], permissions: [`${name}.read`] });
    const verified = await api.call('keys.verifyKey', { key: created.key, permissions: name }, rootKey);
    expect(verified.body.data).toMatchObject({ valid: true, roles: [name] });
    const denied = await api.call('keys.verifyKey', { key: created.key, permissions: `${name}.write` }, rootKey);
    expect(denied.body.data.code).toBe('INSUFFICIENT_PERMISSIONS');
    const access = await callInternal<{ roles: string[]; directPermissions: string[] }>(
      api,
      'keys.getKeyAccess',
      { keyId: created.keyId },
      { rootKey },
    );
    expect(access.data).toEqual({ roles: [name], directPermissions: [`${name}.read`], recoverable: false });
    expect((await api.call('permissions.deleteRole', { role: name }, rootKey)).status).toBe(200);
    expect((await api.call('permissions.deletePermission', { permission: name }, rootKey)).status).toBe(200);
  });

  it('as a meta key, of a key and of an identity: stored and answered as sent, __proto__ a 400 naming it', async () => {
    const meta = JSON.parse(`{"${name}": {"polluted": true}, "plain": 1}`) as Record<string, unknown>;
    const externalId = `meta-${name}`;
    if (name === '__proto__') {
      // Every plain object built from it would drop it: refused, not silently lost.
      const refused = await api.call('keys.createKey', { apiId: owner.apiId, meta }, rootKey);
      expect(refused.status).toBe(400);
      expect(refused.body.error.errors).toEqual([
        expect.objectContaining({ location: 'body.meta.__proto__', message: 'must not have a field named __proto__' }),
      ]);
      await owner.newKey({ externalId });
      const identity = await api.call('identities.updateIdentity', { identity: externalId, meta }, rootKey);
      expect(identity.status).toBe(400);
      expect(identity.body.error.errors?.[0]?.location).toBe('body.meta.__proto__');
      return;
    }
    const created = await owner.newKey({ meta, externalId });
    const read = await api.call('keys.getKey', { keyId: created.keyId }, rootKey);
    expect(read.status).toBe(200);
    expect(entriesOf(read.body.data.meta)).toEqual(entriesOf(meta));
    const verified = await api.call('keys.verifyKey', { key: created.key }, rootKey);
    expect(entriesOf(verified.body.data.meta)).toEqual(entriesOf(meta));
    const identity = await api.call('identities.updateIdentity', { identity: externalId, meta }, rootKey);
    expect(identity.status).toBe(200);
    expect(entriesOf(identity.body.data.meta)).toEqual(entriesOf(meta));
  });

  it('as an identifier: a verification tag, a limit name, an external id, a namespace and an override', async () => {
    const created = await owner.newKey({
      externalId: name,
      ratelimits: [{ name, limit: 1, duration: 60_000 }],
    });
    const first = await api.call('keys.verifyKey', { key: created.key, tags: [name], ratelimits: [{ name }] }, rootKey);
    expect(first.body.data).toMatchObject({ valid: true });
    const second = await api.call('keys.verifyKey', { key: created.key, ratelimits: [{ name }] }, rootKey);
    expect(second.body.data.code).toBe('RATE_LIMITED');
    expect((await api.call('identities.getIdentity', { identity: name }, rootKey)).body.data.externalId).toBe(name);

    const limit = { namespace: name, identifier: name, limit: 1, duration: 60_000 };
    expect((await api.call('ratelimit.limit', limit, rootKey)).body.data.success).toBe(true);
    expect((await api.call('ratelimit.limit', limit, rootKey)).body.data.success).toBe(false);
    const override = await api.call(
      'ratelimit.setOverride',
      { namespace: name, identifier: name, limit: 5, duration: 60_000 },
      rootKey,
    );
    expect(override.status).toBe(200);
    const found = await api.call('ratelimit.getOverride', { namespace: name, identifier: name }, rootKey);
    expect(found.body.data).toMatchObject({ identifier: name, limit: 5 });
  });

  it('as a procedure name: 404 at /v2 and at /trpc', async () => {
    for (const path of [name, `keys.${name}`, `${name}.createKey`]) {
      expect((await api.post(path, {}, rootKey)).status).toBe(404);
      const internal = await api.fetch(`/trpc/${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${rootKey}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(internal.status).toBe(404);
    }
  });

  it('as a table of an analytics query: 400 naming the query; as a column: answered as named', async () => {
    const table = await api.post('analytics.getVerifications', { query: `SELECT * FROM ${name}` }, rootKey);
    expect(table.status).toBe(400);
    expect(table.body.error.errors?.[0]?.location).toBe('body.query');
    const column = await api.post(
      'analytics.getVerifications',
      { query: `SELECT 1 AS "${name}", 2 AS plain` },
      rootKey,
    );
    if (name === '__proto__') {
      expect(column.status).toBe(400);
      expect(column.body.error.errors?.[0]?.location).toBe('body.query');
      return;
    }
    expect(column.status).toBe(200);
    expect(entriesOf((column.body.data as unknown as Record<string, unknown>[])[0])).toEqual(
      [
        [name, 1],
        ['plain', 2],
      ].sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { type Answer, expectVictimServed, NODE_MEMORY_BOUND_BYTES, useHostileTenancy } from './hostileTenant.ts';

// docs/contract.md#limits: what a key can be given is bounded (100 roles holding at most 2000
// permissions between them, 1000 direct permissions), and a permission query costs lookups per
// character whatever the key holds.

const tenancy = useHostileTenancy();

const ROLES = 100;
/** Two roles of 1000 distinct permissions: what a key's roles may hold between them. */
const FULL_ROLES = 2;
const PERMISSIONS_PER_ROLE = 1000;

/** A 128-character slug, the longest; wildcards, so that a query has the most to check. */
const slug = (index: number) => `p${String(index).padStart(5, '0')}.${'s'.repeat(119)}.*`;

let keyId: string;
let key: string;
const roleNames = Array.from({ length: ROLES }, (_, index) => `role-${index}`);

const isLimitExceeded = (answer: Answer) => {
  expect(answer.status).toBe(412);
  expect(answer.body).toMatchObject({
    error: { type: expect.stringMatching(/\/service\/application\/precondition_failed$/) },
  });
};

beforeAll(async () => {
  for (const [index, name] of roleNames.entries()) {
    const permissions =
      index < FULL_ROLES
        ? Array.from({ length: PERMISSIONS_PER_ROLE }, (_, offset) => slug(index * PERMISSIONS_PER_ROLE + offset))
        : [];
    expect((await tenancy.call('permissions.createRole', { name, permissions })).status).toBe(200);
  }
  const apiId = (await tenancy.call('apis.createApi', { name: 'holder' })).body.data.apiId;
  ({ keyId, key } = (await tenancy.call('keys.createKey', { apiId })).body.data);
  expect((await tenancy.call('keys.setRoles', { keyId, roles: roleNames })).status).toBe(200);
  // And the most direct permissions, none of them its roles': 3000 in every verification's answer.
  const direct = Array.from({ length: 1000 }, (_, offset) => slug(FULL_ROLES * PERMISSIONS_PER_ROLE + offset));
  expect((await tenancy.call('keys.setPermissions', { keyId, permissions: direct })).status).toBe(200);
}, 300_000);

describe('the most a key may hold', () => {
  it('refuses a 101st role, a role that would take its roles past 2000 permissions, and a held role growing past them', async () => {
    expect((await tenancy.call('permissions.createRole', { name: 'one-more' })).status).toBe(200);
    isLimitExceeded(await tenancy.send('/v2/keys.addRoles', { keyId, roles: ['one-more'] }));

    const emptyRole = roleNames[ROLES - 1] as string;
    const roleId = (await tenancy.call('permissions.getRole', { role: emptyRole })).body.data.id;
    isLimitExceeded(await tenancy.send('/v2/permissions.setRolePermissions', { roleId, permissions: [slug(0)] }));
    expect((await tenancy.call('permissions.getRole', { role: emptyRole })).body.data.permissions).toEqual([]);

    const other = (
      await tenancy.call('keys.createKey', {
        apiId: (await tenancy.call('apis.createApi', { name: 'other' })).body.data.apiId,
      })
    ).body.data;
    expect(
      (await tenancy.call('keys.setRoles', { keyId: other.keyId, roles: roleNames.slice(0, FULL_ROLES) })).status,
    ).toBe(200);
    expect(
      (await tenancy.call('permissions.createRole', { name: 'one-more-permission', permissions: [slug(0)] })).status,
    ).toBe(200);
    isLimitExceeded(await tenancy.send('/v2/keys.addRoles', { keyId: other.keyId, roles: ['one-more-permission'] }));
  });

  it('the largest keys.setRoles answer leaves another workspace verifying within the bound, and the node under 1 GiB', async () => {
    const latencies = await tenancy.victimLatencies(
      () => tenancy.send('/v2/keys.setRoles', { keyId, roles: roleNames }),
      (answer) => expect(answer.status).toBe(200),
    );
    expectVictimServed(latencies);
    expect(await tenancy.peakMemoryBytes()).toBeLessThan(NODE_MEMORY_BOUND_BYTES);
  }, 120_000);

  it('verifying it with the longest query leaves another workspace verifying within the bound', async () => {
    const query = Array.from({ length: 7 }, (_, index) => `q${index}.${'x.'.repeat(60)}y`).join(' OR ');
    expect(query.length).toBeLessThanOrEqual(1000);
    const latencies = await tenancy.victimLatencies(
      () => tenancy.send('/v2/keys.verifyKey', { key, permissions: query }),
      (answer) => {
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ data: { code: 'INSUFFICIENT_PERMISSIONS' } });
      },
    );
    expectVictimServed(latencies);
  }, 60_000);
});

describe('the most rate limits one verification checks', () => {
  it('50 of the key, 50 of its identity and 50 asked for leave another workspace verifying within the bound', async () => {
    const limits = (prefix: string) =>
      Array.from({ length: 50 }, (_, index) => ({
        name: `${prefix}-${index}`,
        limit: 1_000_000_000,
        duration: 60_000,
        autoApply: true,
      }));
    const apiId = (await tenancy.call('apis.createApi', { name: 'limited' })).body.data.apiId;
    await tenancy.call('identities.createIdentity', { externalId: 'limited-owner', ratelimits: limits('identity') });
    const limited = await tenancy.call('keys.createKey', {
      apiId,
      externalId: 'limited-owner',
      ratelimits: limits('key'),
    });
    const asked = Array.from({ length: 50 }, (_, index) => ({
      name: `asked-${index}`,
      cost: 1,
      limit: 1_000_000_000,
      duration: 60_000,
    }));
    const latencies = await tenancy.victimLatencies(
      () => tenancy.send('/v2/keys.verifyKey', { key: limited.body.data.key, ratelimits: asked }),
      (answer) => {
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ data: { code: 'VALID' } });
        expect((answer.body as { data: { ratelimits: unknown[] } }).data.ratelimits).toHaveLength(150);
      },
    );
    expectVictimServed(latencies);
  }, 60_000);
});

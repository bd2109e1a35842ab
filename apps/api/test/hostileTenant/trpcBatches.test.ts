import { beforeAll, describe, expect, it } from 'vitest';
import { type Answer, expectVictimServed, NODE_MEMORY_BOUND_BYTES, useHostileTenancy } from './hostileTenant.ts';

// docs/contract.md#limits: a /trpc batch holds at most LIMIT_TRPC_BATCH_SIZE calls (10 by
// default), and every list answers a page bounded by its rows and by what they carry, so the
// largest batch costs a bounded amount whatever the workspace holds.

const tenancy = useHostileTenancy();

const BATCH_LIMIT = 10;
/** A megabyte and a bit less: the most meta one request body carries. */
const LARGE_META = { blob: 'x'.repeat(900_000) };

/** One /trpc batch (POST, which the method override accepts for queries too), as the dashboard sends them. */
function batch(calls: [procedure: string, input: unknown][]): Promise<Answer> {
  const paths = calls.map(([procedure]) => procedure).join(',');
  const inputs = Object.fromEntries(calls.map(([, input], index) => [index, input]));
  return tenancy.send(`/trpc/${paths}?batch=1`, inputs);
}

let apiId: string;
let heavyKeyId: string;
let heavyRoleId: string;

beforeAll(async () => {
  // What carries the most: roles of 1000 permissions of 128 characters, keys and identities with
  // a megabyte of meta.
  const slugs = Array.from({ length: 1000 }, (_, index) => `p.${String(index).padStart(4, '0')}.${'s'.repeat(121)}`);
  for (let index = 0; index < 5; index++) {
    const role = await tenancy.call('permissions.createRole', { name: `heavy-${index}`, permissions: slugs });
    expect(role.status).toBe(200);
    heavyRoleId = role.body.data.roleId;
  }
  apiId = (await tenancy.call('apis.createApi', { name: 'heavy' })).body.data.apiId;
  for (let index = 0; index < 3; index++) {
    const key = await tenancy.call('keys.createKey', { apiId, meta: LARGE_META, roles: ['heavy-0'] });
    expect(key.status).toBe(200);
    heavyKeyId = key.body.data.keyId;
    const identity = await tenancy.call('identities.createIdentity', {
      externalId: `heavy_${index}`,
      meta: LARGE_META,
    });
    expect(identity.status).toBe(200);
  }
}, 120_000);

describe('400', () => {
  it('refuses a batch of more calls than the limit before running any of them', async () => {
    const refused = await batch(
      Array.from({ length: BATCH_LIMIT + 1 }, (_, index) => ['apis.createApi', { name: `batched-${index}` }]),
    );
    expect(refused.status).toBe(400);
    const listed = await batch([['apis.listApis', { search: 'batched-' }]]);
    expect(listed.body).toEqual([{ result: { data: { data: [], pagination: { hasMore: false } } } }]);
  });
});

describe('200', () => {
  it('serves a batch of as many calls as the limit', async () => {
    const served = await batch(Array.from({ length: BATCH_LIMIT }, () => ['apis.getApi', { apiId }]));
    expect(served.status).toBe(200);
    expect(served.body).toHaveLength(BATCH_LIMIT);
  });
});

describe('the largest batch of the heaviest reads', () => {
  const heaviest: [string, unknown][] = [
    ['permissions.listRoles', { limit: 100 }],
    ['apis.listKeys', { apiId: '', limit: 100 }],
    ['identities.listIdentities', { limit: 100 }],
    ['apis.listKeysPage', { apiId: '', pageSize: 100 }],
    ['permissions.listPermissions', { limit: 100 }],
    ['keys.getKey', { keyId: '' }],
    ['permissions.getRole', { role: '' }],
    ['identities.getIdentity', { identity: 'heavy_0' }],
    ['rootKeys.listRootKeys', { limit: 100 }],
    ['apis.listApis', { limit: 100 }],
  ];

  it('answers, another workspace verifies within the bound meanwhile, and the node stays under 1 GiB', async () => {
    const calls = heaviest.map(([procedure, input]): [string, unknown] => [
      procedure,
      JSON.parse(
        JSON.stringify(input)
          .replaceAll('"apiId":""', `"apiId":"${apiId}"`)
          .replaceAll('"keyId":""', `"keyId":"${heavyKeyId}"`)
          .replaceAll('"role":""', `"role":"${heavyRoleId}"`),
      ),
    ]);
    expect(calls).toHaveLength(BATCH_LIMIT);
    const latencies = await tenancy.victimLatencies(
      () => batch(calls),
      (answer) => {
        expect(answer.status).toBe(200);
        expect(answer.body).toHaveLength(BATCH_LIMIT);
      },
      3,
    );
    expectVictimServed(latencies);
    expect(await tenancy.peakMemoryBytes()).toBeLessThan(NODE_MEMORY_BOUND_BYTES);
  }, 90_000);
});

import { appRouter } from '@keyplane/procedures';
import { expect, it } from 'vitest';
import { PUBLIC_PROCEDURES } from '../src/http/procedureTable.ts';
import { createTestApi, createTestKey, useApi } from './harness.ts';
import { callInternal } from './internal.ts';

// Every bad input must be a 4xx naming the problem. Each procedure gets a well-formed body built
// from the fields its schema declares, then that body with one field (or one field of a nested
// object) replaced by each of these values.
const api = useApi();

const ODD_VALUES: unknown[] = [
  '\u0000',
  'holds\u0000nul',
  'lone \ud800 surrogate',
  '',
  ' ',
  'x'.repeat(70_000),
  '😀'.repeat(300),
  "'; drop table keys; --",
  '%',
  '\\',
  '*',
  'a AND',
  'key_00000000000000000000000000000000',
  -1,
  0,
  1.5,
  1e308,
  2 ** 53 + 2,
  true,
  null,
  {},
  [],
  ['holds\u0000nul'],
  [{}],
  [null],
  { '\u0000': 1 },
  JSON.parse(`${'['.repeat(500)}${']'.repeat(500)}`),
];

type ProcedureDefinitions = Record<string, { _def: { inputs: { shape?: Record<string, unknown> }[] } }>;

/** Changes that remove what the other procedures refer to run last. */
const destructive = (path: string) => /delete|revoke|signOut/.test(path);

it('no procedure, public or internal, answers a 5xx to malformed input', async () => {
  const workspace = await api.workspace({ vault: true });
  const apiId = await createTestApi(api, workspace.rootKey, { encryption: { enabled: true } });
  const { keyId, key } = await createTestKey(api, workspace.rootKey, {
    apiId,
    externalId: 'user_1',
    recoverable: true,
  });
  await api.post('permissions.createPermission', { name: 'p1', slug: 'p1' }, workspace.rootKey);
  const role = await api.call('permissions.createRole', { name: 'r1' }, workspace.rootKey);
  await api.post('ratelimit.limit', { namespace: 'ns1', identifier: 'i', limit: 5, duration: 1000 }, workspace.rootKey);
  const spare = await workspace.rootKeyWith(['api.*.read_api']);

  const wellFormed: Record<string, unknown> = {
    apiId,
    keyId,
    key,
    roleId: role.body.data.roleId,
    rootKeyId: spare.rootKeyId,
    name: 'nice',
    description: 'd',
    externalId: 'user_1',
    identity: 'user_1',
    identityId: 'user_1',
    namespace: 'ns1',
    identifier: 'i',
    limit: 5,
    duration: 1000,
    permissions: ['p1'],
    roles: ['r1'],
    permission: 'p1',
    role: 'r1',
    slug: 'p1',
    query: 'select 1',
    migrationId: 'mig1',
    decrypt: true,
    tags: ['t'],
    cost: 1,
    credits: { remaining: 5, refill: { interval: 'daily', amount: 5 } },
    ratelimits: [{ name: 'requests', limit: 5, duration: 1000, autoApply: true }],
    meta: { a: 1 },
    expires: Date.now() + 100_000,
    enabled: true,
    prefix: 'pre',
    byteLength: 16,
    operation: 'set',
    value: 5,
    expiration: 1000,
    keys: [{ hash: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=', name: 'x' }],
  };
  const wellFormedFor: Record<string, Record<string, unknown>> = {
    'keys.verifyKey': { permissions: 'p1', credits: { cost: 1 }, ratelimits: [{ name: 'requests' }] },
    'rootKeys.createRootKey': { permissions: ['api.*.read_api'] },
    'permissions.createPermission': { slug: 'p2', name: 'p2' },
    'identities.createIdentity': { externalId: 'user_2' },
  };

  const publicProcedures = PUBLIC_PROCEDURES;
  const procedures = appRouter._def.procedures as unknown as ProcedureDefinitions;
  const paths = Object.keys(procedures).sort((a, b) => Number(destructive(a)) - Number(destructive(b)));
  const failures: string[] = [];
  for (const path of paths) {
    const fields = Object.keys(procedures[path]?._def.inputs[0]?.shape ?? {});
    const values = { ...wellFormed, ...wellFormedFor[path] };
    const base = Object.fromEntries(fields.filter((field) => values[field] !== undefined).map((f) => [f, values[f]]));
    const bodies: unknown[] = [{}, [], base];
    for (const field of fields) {
      for (const odd of ODD_VALUES) bodies.push({ ...base, [field]: odd });
      const inner = base[field];
      const template = Array.isArray(inner) ? inner[0] : inner;
      if (template === null || typeof template !== 'object') continue;
      for (const innerField of Object.keys(template)) {
        for (const odd of ODD_VALUES) {
          const changed = { ...template, [innerField]: odd };
          bodies.push({ ...base, [field]: Array.isArray(inner) ? [changed] : changed });
        }
      }
    }
    for (const body of bodies) {
      const { status } = publicProcedures.has(path)
        ? await api.post(path, body, workspace.rootKey)
        : await callInternal(api, path, body, { rootKey: workspace.rootKey });
      if (status >= 500) failures.push(`${path} ${JSON.stringify(body).slice(0, 200)} -> ${status}`);
    }
  }
  expect(failures).toEqual([]);
}, 120_000);

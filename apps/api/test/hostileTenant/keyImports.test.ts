import { randomBytes } from 'node:crypto';
import { createKeyMigration } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectVictimServed, NODE_MEMORY_BOUND_BYTES, useHostileTenancy } from './hostileTenant.ts';

// docs/contract.md#limits: one keys.migrateKeys imports at most 1000 keys, in one transaction.

const tenancy = useHostileTenancy();

const MOST_KEYS = 1000;

let apiId: string;
let migrationId: string;

beforeAll(async () => {
  apiId = (await tenancy.call('apis.createApi', { name: 'imports' })).body.data.apiId;
  migrationId = await createKeyMigration(tenancy.server.database.orm.em.fork(), tenancy.hostileWorkspaceId);
});

/**
 * The largest import: 1000 keys, each with an identity, meta, a role, permissions and limits,
 * as much as the default body limit (1 MiB) lets through. Every call brings new hashes.
 */
function largestImport(): string {
  const keys = Array.from({ length: MOST_KEYS }, (_, index) => ({
    hash: randomBytes(32).toString('hex'),
    externalId: `customer_${index % 100}`,
    meta: { plan: 'imported', index },
    roles: [`imported-${index % 10}`],
    permissions: [`imported.${index % 50}`],
    ratelimits: [{ name: 'requests', limit: 100, duration: 60_000 }],
  }));
  return JSON.stringify({ migrationId, apiId, keys });
}

describe('the largest keys.migrateKeys', () => {
  it('is refused past 1000 keys', async () => {
    const refused = await tenancy.send(
      '/v2/keys.migrateKeys',
      JSON.stringify({ migrationId, apiId, keys: Array.from({ length: MOST_KEYS + 1 }, () => ({ hash: 'abcdef' })) }),
    );
    expect(refused.status).toBe(400);
  });

  it('imports, while another workspace verifies within the bound and the node stays under 1 GiB', async () => {
    const body = largestImport();
    expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
    const latencies = await tenancy.victimLatencies(
      () => tenancy.send('/v2/keys.migrateKeys', largestImport()),
      (answer) => {
        expect(answer.status).toBe(200);
        expect((answer.body as { data: { migrated: unknown[] } }).data.migrated).toHaveLength(MOST_KEYS);
      },
    );
    expectVictimServed(latencies);
    expect(await tenancy.peakMemoryBytes()).toBeLessThan(NODE_MEMORY_BOUND_BYTES);
  }, 120_000);
});

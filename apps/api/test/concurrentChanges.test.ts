import { expect, it } from 'vitest';
import { createTestApi, createTestKey, useApi } from './harness.ts';

// Many changes to the same two keys, their roles, permissions, identities and rate limits at
// once: PostgreSQL serialises them with row locks, and none may end as a 5xx (a deadlock or a
// constraint race would) or leave a key that cannot be read or verified.
const api = useApi();

/** A fixed sequence of choices (mulberry32), so a failure names calls a rerun makes again. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

it('concurrent changes to shared keys never answer a 5xx and leave every key readable and verifiable', async () => {
  const workspace = await api.workspace({ vault: true });
  const apiId = await createTestApi(api, workspace.rootKey, { encryption: { enabled: true } });
  const keys = await Promise.all(
    ['user_0', 'user_1'].map((externalId) =>
      createTestKey(api, workspace.rootKey, {
        apiId,
        externalId,
        recoverable: true,
        credits: { remaining: 100 },
        ratelimits: [{ name: 'requests', limit: 100, duration: 60_000 }],
      }),
    ),
  );
  for (const slug of ['p1', 'p2', 'p3']) {
    await api.post('permissions.createPermission', { name: slug, slug }, workspace.rootKey);
  }
  for (const name of ['r1', 'r2']) {
    await api.post('permissions.createRole', { name, permissions: ['p1', 'p2'] }, workspace.rootKey);
  }

  const random = seededRandom(20261121);
  const pick = <T>(choices: readonly T[]): T => choices[Math.floor(random() * choices.length)] as T;
  const keyId = () => pick(keys).keyId;
  const changes: (() => [procedure: string, body: unknown])[] = [
    () => [
      'keys.updateKey',
      {
        keyId: keyId(),
        ratelimits: [{ name: pick(['aaa', 'bbb', 'requests']), limit: 5, duration: 1000 }],
        roles: [pick(['r1', 'r2'])],
        permissions: [pick(['p1', 'p2', 'p3', 'p4'])],
        externalId: pick(['user_0', 'user_1', 'user_9']),
      },
    ],
    () => ['keys.setRoles', { keyId: keyId(), roles: [pick(['r1', 'r2'])] }],
    () => ['keys.addPermissions', { keyId: keyId(), permissions: [pick(['p1', 'p2', 'p3', 'p5'])] }],
    () => ['keys.setPermissions', { keyId: keyId(), permissions: [pick(['p1', 'p2', 'p3'])] }],
    () => ['keys.removePermissions', { keyId: keyId(), permissions: [pick(['p1', 'p2', 'p3'])] }],
    () => ['keys.updateCredits', { keyId: keyId(), operation: pick(['set', 'increment', 'decrement']), value: 3 }],
    () => ['keys.verifyKey', { key: pick(keys).key, credits: { cost: 1 } }],
    () => ['keys.rerollKey', { keyId: keyId(), expiration: 0 }],
    () => ['permissions.deletePermission', { permission: pick(['p4', 'p5']) }],
    () => ['permissions.createRole', { name: pick(['r3', 'r4']), permissions: ['p1'] }],
    () => ['permissions.deleteRole', { role: pick(['r3', 'r4']) }],
    () => [
      'identities.updateIdentity',
      { identity: pick(['user_0', 'user_1']), ratelimits: [{ name: pick(['aaa', 'bbb']), limit: 5, duration: 1000 }] },
    ],
    () => ['identities.createIdentity', { externalId: pick(['user_8', 'user_9']) }],
    () => ['identities.deleteIdentity', { identity: pick(['user_8', 'user_9']) }],
    () => ['ratelimit.setOverride', { namespace: 'ns', identifier: pick(['a', 'b']), limit: 3, duration: 1000 }],
    () => ['ratelimit.deleteOverride', { namespace: 'ns', identifier: pick(['a', 'b']) }],
    () => ['ratelimit.limit', { namespace: 'ns', identifier: pick(['a', 'b']), limit: 3, duration: 1000 }],
  ];

  const failures: string[] = [];
  for (let round = 0; round < 15; round++) {
    const calls = Array.from({ length: 60 }, () => pick(changes)());
    await Promise.all(
      calls.map(async ([procedure, body]) => {
        const reply = await api.post(procedure, body, workspace.rootKey);
        if (reply.status >= 500) failures.push(`${procedure} ${JSON.stringify(body)} -> ${reply.status}`);
      }),
    );
  }
  expect(failures).toEqual([]);

  const listed = await api.call('apis.listKeys', { apiId, limit: 100 }, workspace.rootKey);
  expect(listed.status).toBe(200);
  for (const { keyId: listedKeyId } of listed.body.data) {
    const read = await api.call('keys.getKey', { keyId: listedKeyId, decrypt: true }, workspace.rootKey);
    expect(read.status).toBe(200);
    expect(read.body.data.credits?.remaining ?? 0).toBeGreaterThanOrEqual(0);
  }
  for (const { key } of keys) {
    const verified = await api.call('keys.verifyKey', { key }, workspace.rootKey);
    expect(verified.status).toBe(200);
    expect(typeof verified.body.data.valid).toBe('boolean');
  }
}, 120_000);

import { bootstrapWorkspace } from '@keyplane/core';
import { createKeyMigration, type EntityManager, rows, sql, workspaceStore } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import type { SpawnedServer } from '../../../../bench/server.ts';
import { useTwoNodes } from '../twoNodes.ts';

// docs/contract.md#limits: what a workspace may hold is counted under a lock of its own in the
// write's transaction, so concurrent writes on two nodes never pass a limit, and a write refused
// by one leaves nothing behind. The limits are set small here through the variables operators use.

const LIMITS = {
  LIMIT_RATELIMIT_NAMESPACES: '5',
  LIMIT_RATELIMIT_OVERRIDES: '6',
  LIMIT_RATELIMIT_WILDCARD_OVERRIDES: '3',
  LIMIT_ROLES: '5',
  LIMIT_PERMISSIONS: '20',
};
const nodes = useTwoNodes(LIMITS);

/** How many writes each test sends at once, half to each node: well past every limit above. */
const CONCURRENT = 16;

interface Answer {
  status: number;
  body: { data?: Record<string, unknown>; error?: { type: string; detail: string } };
}

async function post(node: SpawnedServer, procedure: string, body: unknown, rootKey: string): Promise<Answer> {
  const response = await fetch(`${node.url}/v2/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

/** A workspace of its own for each test (every permission), so that each starts from nothing. */
async function freshWorkspace() {
  const created = await nodes.database.orm.em
    .fork()
    .transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'bounded' }));
  return { workspaceId: created.workspaceId, rootKey: created.rootKey };
}

/** Sends the writes all at once, alternating the nodes; answers their statuses, each a 200 or a 412 precondition_failed. */
async function concurrently(rootKey: string, write: (index: number) => [procedure: string, body: unknown]) {
  const answers = await Promise.all(
    Array.from({ length: CONCURRENT }, (_, index) => {
      const [procedure, body] = write(index);
      return post(index % 2 === 0 ? nodes.nodeA : nodes.nodeB, procedure, body, rootKey);
    }),
  );
  for (const answer of answers) {
    if (answer.status !== 200) {
      expect(answer.status).toBe(412);
      expect(answer.body.error?.type).toMatch(/\/service\/application\/precondition_failed$/);
    }
  }
  return answers.filter((answer) => answer.status === 200).length;
}

const em = (): EntityManager => nodes.database.orm.em.fork();

async function count(statement: ReturnType<typeof sql<{ count: number }>>): Promise<number> {
  const [found] = await rows(em(), statement);
  return found?.count ?? 0;
}

describe('concurrent writes on two nodes stop exactly at each limit', () => {
  it('rate-limit namespaces, created by their first use', async () => {
    const { workspaceId, rootKey } = await freshWorkspace();
    const passed = await concurrently(rootKey, (index) => [
      'ratelimit.limit',
      { namespace: `ns-${index}`, identifier: 'user', limit: 1, duration: 1000, cost: 0 },
    ]);
    expect(passed).toBe(5);
    expect(
      await count(sql`select count(*)::int as count from ratelimit_namespaces where workspace_id = ${workspaceId}`),
    ).toBe(5);
  });

  it('overrides of a namespace, and wildcard ones among them', async () => {
    const { rootKey } = await freshWorkspace();
    const namespace = 'api';
    expect(
      (await post(nodes.nodeA, 'ratelimit.limit', { namespace, identifier: 'x', limit: 1, duration: 1000 }, rootKey))
        .status,
    ).toBe(200);
    const override = (identifier: string): [string, unknown] => [
      'ratelimit.setOverride',
      { namespace, identifier, limit: 1, duration: 60_000 },
    ];
    expect(await concurrently(rootKey, (index) => override(`tenant_${index}_*`))).toBe(3);
    expect(await concurrently(rootKey, (index) => override(`user_${index}`))).toBe(3);
    const live = sql<{ count: number }>`select count(*)::int as count from ratelimit_overrides o
      join ratelimit_namespaces n on n.id = o.namespace_id where n.name = ${namespace} and o.deleted_at is null`;
    expect(await count(live)).toBe(6);
    // Changing one the namespace holds adds none: it passes at the limit.
    const [held] = await rows(
      em(),
      sql<{ identifier: string }>`select o.identifier from ratelimit_overrides o
        join ratelimit_namespaces n on n.id = o.namespace_id where n.name = ${namespace} and o.deleted_at is null limit 1`,
    );
    const [procedure, body] = override(held?.identifier ?? '');
    expect((await post(nodes.nodeB, procedure, body, rootKey)).status).toBe(200);
  });

  it('roles', async () => {
    const { workspaceId, rootKey } = await freshWorkspace();
    expect(await concurrently(rootKey, (index) => ['permissions.createRole', { name: `role-${index}` }])).toBe(5);
    expect(await count(sql`select count(*)::int as count from roles where workspace_id = ${workspaceId}`)).toBe(5);
  });

  it('permissions, however they are created', async () => {
    const { workspaceId, rootKey } = await freshWorkspace();
    const apiId = (await post(nodes.nodeA, 'apis.createApi', { name: 'bounded' }, rootKey)).body.data?.apiId as string;
    const migrationId = await createKeyMigration(em(), workspaceId);
    // Each write adds 2 permissions: 10 of the 16 fit in 20, whichever way they come.
    const passed = await concurrently(rootKey, (index) => {
      const slugs = [`a.${index}`, `b.${index}`];
      switch (index % 3) {
        case 0:
          return ['permissions.createRole', { name: `with-${index}`, permissions: slugs }];
        case 1:
          return ['keys.createKey', { apiId, permissions: slugs }];
        default:
          return ['keys.migrateKeys', { migrationId, apiId, keys: [{ hash: `hash-${index}`, permissions: slugs }] }];
      }
    });
    expect(await count(sql`select count(*)::int as count from permissions where workspace_id = ${workspaceId}`)).toBe(
      20,
    );
    expect(passed).toBe(10);
    // A refused write left nothing behind: every key and role there holds both of its permissions.
    const bare = sql<{ count: number }>`select ((select count(*) from keys k where k.workspace_id = ${workspaceId}
        and (select count(*) from keys_permissions kp where kp.key_id = k.id) <> 2)
      + (select count(*) from roles r where r.workspace_id = ${workspaceId}
        and (select count(*) from roles_permissions rp where rp.role_id = r.id) <> 2))::int as count`;
    expect(await count(bare)).toBe(0);
    const written = sql<{ count: number }>`select ((select count(*) from keys where workspace_id = ${workspaceId})
      + (select count(*) from roles where workspace_id = ${workspaceId}))::int as count`;
    expect(await count(written)).toBe(10);
  });
});

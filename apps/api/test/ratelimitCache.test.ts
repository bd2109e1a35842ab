import { namespaceCacheKey, overrideCacheKey } from '@keyplane/caches';
import { bootstrapWorkspace, issueRootKey } from '@keyplane/core';
import { rootKeyStore, workspaceStore } from '@keyplane/db';
import { describe, expect, it } from 'vitest';
import type { SpawnedServer } from '../../../bench/server.ts';
import { storedNamespaces } from './dbInspect.ts';
import { useApiWithWorkspace } from './fixtures.ts';
import { type LimitData, LONG_WINDOW, limitOn } from './ratelimit.ts';
import { useTwoNodes } from './twoNodes.ts';

// Limiting reads namespaces and exact overrides from each node's cache (docs/architecture.md#caches).
// A change evicts them on every node before it is answered: these tests hold that on two real
// server processes, and look into one node's cache for what it keeps.

const cluster = useTwoNodes();
const { api, workspace } = useApiWithWorkspace();

const limitBody = (namespace: string, identifier: string) => ({
  namespace,
  identifier,
  limit: 5,
  duration: LONG_WINDOW,
  cost: 0,
});
const limitOnNode = (node: SpawnedServer, namespace: string, identifier: string) =>
  cluster.call<LimitData>(node, 'ratelimit.limit', limitBody(namespace, identifier));

/** An internal procedure through `/trpc`, as the dashboard calls it. */
async function trpcMutation(node: SpawnedServer, procedure: string, input: unknown, rootKey: string) {
  const response = await fetch(`${node.url}/trpc/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify(input),
  });
  return response.status;
}

/**
 * Runs `during` while the node answers `ratelimit.limit` without pause; answers the statuses of
 * those background calls.
 */
async function underLoad(node: SpawnedServer, namespace: string, identifier: string, during: () => Promise<void>) {
  let running = true;
  const statuses: number[] = [];
  const loops = Array.from({ length: 4 }, async () => {
    while (running) statuses.push((await limitOnNode(node, namespace, identifier)).status);
  });
  try {
    await during();
  } finally {
    running = false;
    await Promise.all(loops);
  }
  return statuses;
}

describe('on two server processes', () => {
  it('an exact override set, changed and deleted on one node holds for the next request on the other, under load', async () => {
    const namespace = 'cache_override';
    expect((await limitOnNode(cluster.nodeB, namespace, 'vip')).data.limit).toBe(5);
    const setOverride = (limit: number) =>
      cluster.call<{ overrideId: string }>(cluster.nodeA, 'ratelimit.setOverride', {
        namespace,
        identifier: 'vip',
        limit,
        duration: LONG_WINDOW,
      });

    const statuses = await underLoad(cluster.nodeB, namespace, 'vip', async () => {
      const set = await setOverride(50);
      expect(set.status).toBe(200);
      expect((await limitOnNode(cluster.nodeB, namespace, 'vip')).data).toMatchObject({
        limit: 50,
        overrideId: set.data.overrideId,
      });
      expect((await setOverride(70)).status).toBe(200);
      expect((await limitOnNode(cluster.nodeB, namespace, 'vip')).data.limit).toBe(70);
      const deleted = await cluster.call(cluster.nodeA, 'ratelimit.deleteOverride', { namespace, identifier: 'vip' });
      expect(deleted.status).toBe(200);
      expect((await limitOnNode(cluster.nodeB, namespace, 'vip')).data).not.toHaveProperty('overrideId');
    });
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it('a namespace deleted on one node answers 410 on the other at once', async () => {
    const namespace = 'cache_deleted';
    // Created through A, so B caches the live namespace from its first request on.
    expect((await limitOnNode(cluster.nodeA, namespace, 'user')).status).toBe(200);
    expect((await limitOnNode(cluster.nodeB, namespace, 'user')).status).toBe(200);
    const statuses = await underLoad(cluster.nodeB, namespace, 'user', async () => {
      expect(await trpcMutation(cluster.nodeA, 'ratelimit.deleteNamespace', { namespace }, cluster.rootKey)).toBe(200);
      expect((await limitOnNode(cluster.nodeB, namespace, 'user')).status).toBe(410);
    });
    // Requests in flight during the deletion may go either way, but never anything else.
    expect(statuses.every((status) => status === 200 || status === 410)).toBe(true);
  });

  it('a namespace one node knew as missing is found there once the other creates it', async () => {
    const em = () => cluster.database.orm.em.fork();
    const { workspaceId, rootKey } = await em().transactional((tx) =>
      bootstrapWorkspace(workspaceStore(tx), { name: 'cache-missing' }),
    );
    // Without create_namespace, a limit on a missing namespace is a 403 that caches it as missing.
    const limiter = await em().transactional((tx) =>
      issueRootKey(rootKeyStore(tx), { workspaceId, permissions: ['ratelimit.*.limit'] }),
    );
    const limitAsLimiter = async () => {
      const response = await fetch(`${cluster.nodeB.url}/v2/ratelimit.limit`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${limiter.rootKey}` },
        body: JSON.stringify(limitBody('cache_created', 'user')),
      });
      return response.status;
    };
    expect(await limitAsLimiter()).toBe(403);
    expect(await trpcMutation(cluster.nodeA, 'ratelimit.createNamespace', { name: 'cache_created' }, rootKey)).toBe(
      200,
    );
    expect(await limitAsLimiter()).toBe(200);
  });
});

describe("one node's cache", () => {
  const cached = (namespace: string) =>
    api.services.namespaceCache.get(namespaceCacheKey(workspace.workspaceId, namespace));

  it('keeps a missing namespace as none, so garbage names do not reach PostgreSQL', async () => {
    const limiter = await workspace.rootKeyWith(['ratelimit.*.limit']);
    const reply = await limitOn(api, limitBody('never_created', 'user'), limiter.rootKey);
    expect(reply.status).toBe(403);
    expect(cached('never_created')).toEqual({ value: null });
  });

  it('keeps a namespace by the name and by the id it was named by', async () => {
    expect((await limitOn(api, limitBody('by_both', 'user'), workspace.rootKey)).status).toBe(200);
    const [stored] = (await storedNamespaces(api.em(), workspace.workspaceId)).filter(
      (namespace) => namespace.name === 'by_both',
    );
    if (!stored) throw new Error('the namespace was not created');
    expect((await limitOn(api, limitBody('by_both', 'user'), workspace.rootKey)).status).toBe(200);
    expect((await limitOn(api, limitBody(stored.id, 'user'), workspace.rootKey)).status).toBe(200);
    const snapshot = { workspaceId: workspace.workspaceId, id: stored.id, name: 'by_both', deleted: false };
    expect(cached('by_both')?.value).toMatchObject(snapshot);
    expect(cached(stored.id)?.value).toMatchObject(snapshot);
  });

  it('looks up exact overrides only in namespaces that have some', async () => {
    const namespace = 'patterns_only';
    const setOverride = async (identifier: string) =>
      (
        await api.post<{ overrideId: string }>(
          'ratelimit.setOverride',
          { namespace, identifier, limit: 9, duration: LONG_WINDOW },
          workspace.rootKey,
        )
      ).body.data.overrideId;
    expect((await limitOn(api, limitBody(namespace, 'user'), workspace.rootKey)).status).toBe(200);
    const patternId = await setOverride('us*');
    const withPattern = await limitOn(api, limitBody(namespace, 'user'), workspace.rootKey);
    expect(withPattern.body.data).toMatchObject({ limit: 9, overrideId: patternId });
    const namespaceId = (cached(namespace)?.value ?? undefined)?.id;
    if (!namespaceId) throw new Error('the namespace was not cached');
    expect(cached(namespace)?.value).toMatchObject({ exactOverrides: 0, patternOverrides: [{ id: patternId }] });
    expect(api.services.overrideCache.get(overrideCacheKey(namespaceId, 'user'))).toBeUndefined();

    const exactId = await setOverride('user');
    const withExact = await limitOn(api, limitBody(namespace, 'user'), workspace.rootKey);
    expect(withExact.body.data).toMatchObject({ limit: 9, overrideId: exactId });
    expect(api.services.overrideCache.get(overrideCacheKey(namespaceId, 'user'))?.value).toMatchObject({ id: exactId });
    // Other identifiers are kept as having none.
    await limitOn(api, limitBody(namespace, 'other'), workspace.rootKey);
    expect(api.services.overrideCache.get(overrideCacheKey(namespaceId, 'other'))).toEqual({ value: null });
  });
});

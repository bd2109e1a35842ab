import { bootstrapWorkspace } from '@keyplane/core';
import { workspaceStore } from '@keyplane/db';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SpawnedServer } from '../../../bench/server.ts';
import { storedKey } from './dbInspect.ts';
import type { NewKeyInput } from './fixtures.ts';
import { useTwoNodes } from './twoNodes.ts';

// Two real server processes on one PostgreSQL (and one Redis when there is one), as in production.
const cluster = useTwoNodes();
let apiId: string;

const verify = async (node: SpawnedServer, key: string) =>
  (await cluster.callProcedure(node, 'keys.verifyKey', { key })).body.data;
const createKey = async (input: NewKeyInput = {}) =>
  (await cluster.callProcedure(cluster.nodeA, 'keys.createKey', { apiId, ...input })).body.data;

beforeAll(async () => {
  apiId = (await cluster.callProcedure(cluster.nodeA, 'apis.createApi', { name: 'multi-node' })).body.data.apiId;
});

describe('two server processes', () => {
  it('bootstrap only once', () => {
    expect(cluster.nodeB.rootKey).toBeUndefined();
  });

  it('spend credits exactly: N parallel verifications across both give exactly C valid answers', async () => {
    const { keyId, key } = await createKey({ credits: { remaining: 40 } });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, index) => verify(index % 2 === 0 ? cluster.nodeA : cluster.nodeB, key)),
    );
    expect(answers.filter((answer) => answer.valid)).toHaveLength(40);
    expect(answers.filter((answer) => answer.code === 'USAGE_EXCEEDED')).toHaveLength(60);
    expect((await storedKey(cluster.database.orm.em.fork(), keyId))?.credits_remaining).toBe('0');
  });

  it('see a deletion on the other node as soon as it returns', async () => {
    const { keyId, key } = await createKey();
    expect((await verify(cluster.nodeB, key)).code).toBe('VALID');
    expect((await cluster.callProcedure(cluster.nodeA, 'keys.deleteKey', { keyId })).status).toBe(200);
    expect((await verify(cluster.nodeB, key)).code).toBe('NOT_FOUND');
  });

  it('see a disabled key on the other node as soon as the update returns', async () => {
    const { keyId, key } = await createKey();
    expect((await verify(cluster.nodeA, key)).code).toBe('VALID');
    expect((await cluster.callProcedure(cluster.nodeB, 'keys.updateKey', { keyId, enabled: false })).status).toBe(200);
    expect((await verify(cluster.nodeA, key)).code).toBe('DISABLED');
  });

  it("refuse a deleted workspace's root key on the other node as soon as the deletion returns", async () => {
    const { rootKey } = await cluster.database.orm.em
      .fork()
      .transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'doomed' }));
    const ask = (node: SpawnedServer, procedure: string) =>
      fetch(`${node.url}/trpc/${procedure}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
        body: '{}',
      });
    // Node B has the root key cached.
    expect((await ask(cluster.nodeB, 'workspace.getWorkspace')).status).toBe(200);
    expect((await ask(cluster.nodeA, 'workspace.deleteWorkspace')).status).toBe(200);
    expect((await ask(cluster.nodeB, 'workspace.getWorkspace')).status).toBe(401);
  });
});

import { listenForInvalidations, notifyInvalidation, pingInvalidations, rows, sql } from '@keyplane/db';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { useApi } from './harness.ts';
import { type SecondNode, startSecondNode } from './secondNode.ts';

// A change answers once every node has acknowledged it: the mechanism under "revocation beats the cache".
const api = useApi();
let nodeB: SecondNode;

beforeAll(async () => {
  nodeB = await startSecondNode(api);
});
afterAll(async () => {
  await nodeB?.stop();
});

describe('invalidation acknowledgements', () => {
  it('every listening node acknowledges a ping, after handling the announcements before it', async () => {
    const [current] = await rows(api.orm.em.fork(), sql<{ name: string }>`select current_database() as name`);
    const databaseUrl = new URL(inject('databaseUrl'));
    databaseUrl.pathname = `/${current?.name}`;
    const heard: string[] = [];
    const observer = await listenForInvalidations(databaseUrl.toString(), {
      onChange: (change) => heard.push(`change:${change.workspaceId}`),
      onAcknowledged: (nonce) => heard.push(`ack:${nonce}`),
      onReset: () => heard.push('reset'),
    });
    try {
      await notifyInvalidation(api.orm.em.fork(), { workspaceId: 'ws_acked' });
      // The test app, node B and this observer.
      expect(await pingInvalidations(api.orm.em.fork(), 'nonce_1')).toBe(3);
      await vi.waitFor(() => expect(heard.filter((entry) => entry === 'ack:nonce_1')).toHaveLength(3));
      expect(heard[0]).toBe('change:ws_acked');
      expect(heard).not.toContain('reset');
    } finally {
      await observer.close();
    }
  });

  it('counts only the listeners of this database that are still connected', async () => {
    // The observer above has closed; its backend leaves pg_stat_activity a moment later.
    await vi.waitFor(async () => expect(await pingInvalidations(api.orm.em.fork(), 'nonce_2')).toBe(2));
  });
});

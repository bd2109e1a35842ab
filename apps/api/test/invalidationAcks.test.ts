import { createChangeLog, type Invalidation, listenForInvalidations } from '@keyplane/caches';
import { rows, sql } from '@keyplane/db';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { useApi } from './harness.ts';
import { useSecondNode } from './secondNode.ts';

// A change answers once every node has acknowledged it: the mechanism under "revocation beats the cache".
const api = useApi();
// A second node running, whose acknowledgement every change below waits for.
useSecondNode(api);
let databaseUrl: string;

beforeAll(async () => {
  const [current] = await rows(api.em(), sql<{ name: string }>`select current_database() as name`);
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${current?.name}`;
  databaseUrl = url.toString();
});

/** Another node's listener, recording what it handled. */
async function observer() {
  const heard: Invalidation[] = [];
  const listener = await listenForInvalidations(databaseUrl, {
    onChange: (change) => heard.push(change),
    onReset: () => heard.push({ workspaceId: 'reset' }),
  });
  return { heard, listener };
}

describe('every node caught up', () => {
  it('waits for every listening node, each having handled the announcements before the ping', async () => {
    const pinging = await observer();
    const other = await observer();
    try {
      await createChangeLog().announce(api.em(), { workspaceId: 'ws_acked' });
      // The test app, node B and the two observers.
      expect(await pinging.listener.everyNodeCaughtUp(api.em(), 10_000)).toEqual({
        listeners: 4,
        acknowledged: 4,
      });
      expect(other.heard).toEqual([{ workspaceId: 'ws_acked' }]);
      expect(pinging.heard).toEqual([{ workspaceId: 'ws_acked' }]);
    } finally {
      await pinging.listener.close();
      await other.listener.close();
    }
  });

  it('counts only the listeners of this database that are still connected', async () => {
    const pinging = await observer();
    try {
      // The observers above have closed; their backends leave pg_stat_activity a moment later.
      await vi.waitFor(async () =>
        expect(await pinging.listener.everyNodeCaughtUp(api.em(), 10_000)).toEqual({
          listeners: 3,
          acknowledged: 3,
        }),
      );
    } finally {
      await pinging.listener.close();
    }
  });

  it('acknowledges pings sent at once, each of them, one query at a time', async () => {
    const pinging = await observer();
    const warnings: string[] = [];
    const recordWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', recordWarning);
    try {
      const caughtUp = await Promise.all(
        Array.from({ length: 10 }, () => pinging.listener.everyNodeCaughtUp(api.em(), 10_000)),
      );
      for (const { listeners, acknowledged } of caughtUp) expect(acknowledged).toBe(listeners);
      // pg warns (once per process) when a connection is handed a query while another is running.
      expect(warnings.filter((message) => message.includes('already executing a query'))).toEqual([]);
    } finally {
      process.off('warning', recordWarning);
      await pinging.listener.close();
    }
  });
});

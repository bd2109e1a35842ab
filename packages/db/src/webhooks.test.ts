import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rows, sql } from './sql.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';
import {
  claimDueDeliveries,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  enqueueTestEvent,
  recordDeliveryAttempt,
} from './webhooks.ts';
import { workspaceStore } from './workspaces.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

/** Statements of this database waiting for a lock. */
async function waitingForLocks(): Promise<number> {
  const [found] = await rows(
    database.orm.em.fork(),
    sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                        where datname = current_database() and wait_event_type = 'Lock'`,
  );
  return found?.n ?? 0;
}

describe('deleting an endpoint while a node sends one of its deliveries', () => {
  it('waits for the delivery to be recorded, then deletes both, without a deadlock', async () => {
    const workspaceId = 'ws_delete_while_sending';
    await workspaceStore(database.orm.em.fork()).insertWorkspace({ id: workspaceId, name: 'webhooks' });
    const endpoint = await createWebhookEndpoint(
      database.orm.em.fork(),
      workspaceId,
      {
        url: 'http://127.0.0.1:9/hook',
        description: null,
        eventTypes: ['*'],
        apiIds: null,
        enabled: true,
        creditsLowThreshold: null,
        creditsLowPercent: null,
        expiringNoticeMs: 86_400_000,
      },
      'whsec_test',
      1,
    );
    if (!endpoint) throw new Error('the endpoint was not created');
    expect(await enqueueTestEvent(database.orm.em.fork(), workspaceId, endpoint.id, {})).toBe(true);

    // A node's delivery transaction: the delivery claimed, its request on its way, then the attempt recorded.
    let claimed: () => void = () => {};
    const claim = new Promise<void>((resolve) => (claimed = resolve));
    let answered: () => void = () => {};
    const answer = new Promise<void>((resolve) => (answered = resolve));
    const delivering = database.orm.em.fork().transactional(async (tx) => {
      const [delivery] = await claimDueDeliveries(tx, 1);
      claimed();
      await answer;
      if (!delivery) throw new Error('no delivery was due');
      await recordDeliveryAttempt(tx, delivery, {
        statusCode: 500,
        error: null,
        responseBody: 'down',
        durationMs: 1,
        succeeded: false,
        retryAt: Date.now() + 60_000,
        disableAfterMs: 86_400_000,
      });
    });
    await claim;

    const deleting = deleteWebhookEndpoint(database.orm.em.fork(), workspaceId, endpoint.id);
    await expect.poll(waitingForLocks).toBe(1);
    answered();
    await delivering;
    expect(await deleting).toBe(true);
    const [left] = await rows(
      database.orm.em.fork(),
      sql<{ n: number }>`select count(*)::int as n from webhook_deliveries where endpoint_id = ${endpoint.id}`,
    );
    expect(left?.n).toBe(0);
  });
});

import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  enqueueTestEvent,
  rows,
  sql,
  workspaceStore,
} from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ATTEMPT_NOT_RECORDED, claimDueDeliveries, recordDeliveryAttempt } from './deliveryQueue.ts';

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

const ENDPOINT_SETTINGS = {
  url: 'http://127.0.0.1:9/hook',
  description: null,
  eventTypes: ['*'],
  apiIds: null,
  enabled: true,
  creditsLowThreshold: null,
  creditsLowPercent: null,
  expiringNoticeMs: 86_400_000,
};

describe('an attempt whose answer the database refuses', () => {
  it('is logged without it, and its delivery waits for its retry as after any failure', async () => {
    const workspaceId = 'ws_unrecordable_answer';
    await workspaceStore(database.orm.em.fork()).insertWorkspace({ id: workspaceId, name: 'webhooks' });
    const endpoint = await createWebhookEndpoint(database.orm.em.fork(), workspaceId, ENDPOINT_SETTINGS, 'whsec_t', 1);
    if (!endpoint) throw new Error('the endpoint was not created');
    await enqueueTestEvent(database.orm.em.fork(), workspaceId, endpoint.id, {});
    const retryAt = Date.now() + 3_600_000;

    const refused = await database.orm.em.fork().transactional(async (tx) => {
      const [delivery] = await claimDueDeliveries(tx, { count: 1, perWorkspace: 1 });
      if (!delivery) throw new Error('no delivery was due');
      // What a receiver answering NUL bytes got through before its answer was made storable.
      const recorded = await recordDeliveryAttempt(tx, delivery, {
        statusCode: 500,
        error: null,
        responseBody: 'before\u0000after',
        durationMs: 3,
        succeeded: false,
        retryAt,
        disableAfterMs: 86_400_000,
      });
      return recorded.refused;
    });
    expect(String(refused)).toMatch(/0x00/);

    const [stored] = await rows(
      database.orm.em.fork(),
      sql<{ state: string; attempts: number; next_attempt_at: Date; failing: boolean }>`
        select d.state, d.attempts, d.next_attempt_at, ep.failing_since is not null as failing
          from webhook_deliveries d join webhook_endpoints ep on ep.id = d.endpoint_id
         where d.endpoint_id = ${endpoint.id}`,
    );
    expect(stored).toMatchObject({ state: 'pending', attempts: 1, failing: true });
    expect(new Date(stored?.next_attempt_at ?? 0).getTime()).toBe(retryAt);
    const logged = await rows(
      database.orm.em.fork(),
      sql<{ status_code: number; error: string; response_body: string | null }>`
        select a.status_code, a.error, a.response_body from webhook_attempts a
          join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = ${endpoint.id}`,
    );
    expect(logged).toEqual([{ status_code: 500, error: ATTEMPT_NOT_RECORDED, response_body: null }]);
    // Not due again before its retry: no node claims it now.
    expect(
      await database.orm.em.fork().transactional((tx) => claimDueDeliveries(tx, { count: 10, perWorkspace: 10 })),
    ).toEqual([]);
  });
});

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
      const [delivery] = await claimDueDeliveries(tx, { count: 1, perWorkspace: 1 });
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

describe('claims', () => {
  /** A workspace with an endpoint and `count` due test events for it, queued one after the other. */
  async function workspaceWithDue(workspaceId: string, count: number, enabled = true) {
    await workspaceStore(database.orm.em.fork()).insertWorkspace({ id: workspaceId, name: 'webhooks' });
    return endpointWithDue(workspaceId, count, enabled);
  }

  async function endpointWithDue(workspaceId: string, count: number, enabled = true) {
    const endpoint = await createWebhookEndpoint(
      database.orm.em.fork(),
      workspaceId,
      { ...ENDPOINT_SETTINGS, enabled },
      'whsec_t',
      10,
    );
    if (!endpoint) throw new Error('the endpoint was not created');
    for (let index = 0; index < count; index++) {
      await enqueueTestEvent(database.orm.em.fork(), workspaceId, endpoint.id, { index });
    }
    return endpoint.id;
  }

  /** Claims in a transaction of its own that stays open (its locks held) until `release()`. */
  async function claimHeld(options: Parameters<typeof claimDueDeliveries>[1]) {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let claimed: (deliveries: Awaited<ReturnType<typeof claimDueDeliveries>>) => void = () => {};
    const result = new Promise<Awaited<ReturnType<typeof claimDueDeliveries>>>((resolve) => (claimed = resolve));
    const done = database.orm.em.fork().transactional(async (tx) => {
      claimed(await claimDueDeliveries(tx, options));
      await released;
    });
    const deliveries = await result;
    return {
      deliveries,
      release: async () => {
        release();
        await done;
      },
    };
  }

  const eventIndexes = (deliveries: { workspaceId: string; payload: string }[]) =>
    deliveries.map(({ workspaceId, payload }) => `${workspaceId}:${JSON.parse(payload).data.index}`);

  it("take workspaces in turn: one workspace's backlog does not delay another's newer event", async () => {
    await workspaceWithDue('ws_claims_backlog', 30);
    await workspaceWithDue('ws_claims_newcomer', 1);

    const first = await claimHeld({ count: 2, perWorkspace: 4 });
    expect(eventIndexes(first.deliveries)).toEqual(['ws_claims_backlog:0', 'ws_claims_newcomer:0']);
    await first.release();

    // Each workspace's oldest first, then each one's next: at most `perWorkspace` of a workspace.
    const all = await claimHeld({ count: 30, perWorkspace: 4 });
    expect(eventIndexes(all.deliveries)).toEqual([
      'ws_claims_backlog:0',
      'ws_claims_newcomer:0',
      'ws_claims_backlog:1',
      'ws_claims_backlog:2',
      'ws_claims_backlog:3',
    ]);
    await all.release();

    const skipping = await claimHeld({ count: 30, perWorkspace: 4, skipWorkspaces: ['ws_claims_backlog'] });
    expect(eventIndexes(skipping.deliveries)).toEqual(['ws_claims_newcomer:0']);
    await skipping.release();
  });

  it("count the deliveries under way elsewhere among a workspace's candidates", async () => {
    const elsewhere = await claimHeld({ count: 4, perWorkspace: 4, skipWorkspaces: ['ws_claims_newcomer'] });
    expect(eventIndexes(elsewhere.deliveries)).toEqual([0, 1, 2, 3].map((index) => `ws_claims_backlog:${index}`));
    const here = await claimHeld({ count: 30, perWorkspace: 4 });
    expect(eventIndexes(here.deliveries)).toEqual(['ws_claims_newcomer:0']);
    await here.release();
    await elsewhere.release();
  });

  it("pass over a disabled endpoint's deliveries, which do not take the workspace's places", async () => {
    await workspaceWithDue('ws_claims_disabled', 6, false);
    const enabled = await endpointWithDue('ws_claims_disabled', 1);
    const claimed = await claimHeld({
      count: 30,
      perWorkspace: 2,
      skipWorkspaces: ['ws_claims_backlog', 'ws_claims_newcomer'],
    });
    expect(claimed.deliveries.map((delivery) => delivery.endpointId)).toEqual([enabled]);
    await claimed.release();
  });
});

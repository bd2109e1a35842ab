import { newId } from '@keyplane/core';
import { type EntityManager, rows, sql } from '@keyplane/db';
import { expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem } from './assertions.ts';
import { procedureById } from './byId.ts';
import type { Api, Reply, TestWorkspace } from './harness.ts';
import type { InputOf } from './procedures.ts';

// What the webhooks.* procedures' tests share: endpoints made through the public procedure, and
// the rows they wrote, read straight from Postgres.

/** A public-looking target: the test server refuses private ones, as a production server does. */
export const HOOK_URL = 'https://hooks.example.com/keyplane';

/** Creates an endpoint (every event type unless `body` says otherwise), failing the test on any error. */
export async function createTestEndpoint(
  api: Api,
  rootKey: string,
  body: Partial<InputOf<'webhooks.createEndpoint'>> = {},
) {
  const reply = await api.call('webhooks.createEndpoint', { url: HOOK_URL, eventTypes: ['*'], ...body }, rootKey);
  if (reply.status !== 200) throw new Error(`createEndpoint failed: ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** The webhooks procedures that take one id: an endpoint's, or for `redeliver` a delivery's. */
type ByIdProcedure = EndpointProcedure | 'webhooks.redeliver';

/** Calls `procedure` with just its id, with the workspace's root key unless given another. */
export function callById<P extends ByIdProcedure>(api: Api, workspace: TestWorkspace, procedure: P) {
  return procedureById(api, workspace, procedure, procedure === 'webhooks.redeliver' ? 'deliveryId' : 'endpointId');
}

/** The procedures on one endpoint that take just its id. */
type EndpointProcedure = 'webhooks.deleteEndpoint' | 'webhooks.rotateSecret' | 'webhooks.sendTest';

/** The endpoint permission's action each procedure on one endpoint needs. */
const ENDPOINT_ACTION = {
  'webhooks.deleteEndpoint': 'delete_endpoint',
  'webhooks.rotateSecret': 'update_endpoint',
  'webhooks.sendTest': 'update_endpoint',
} as const;

/**
 * `callById` for a procedure on one endpoint, which takes `webhook.<endpointId>.<action>` (or its
 * wildcard), with the tests it shares with the others; `unchanged` finds an endpoint a refused call
 * left alone as it was.
 */
export function endpointProcedure<P extends EndpointProcedure>(
  api: Api,
  workspace: TestWorkspace,
  procedure: P,
  unchanged: (endpoint: { endpointId: string; secret: string }) => Promise<void>,
) {
  const call = callById(api, workspace, procedure);
  const action = ENDPOINT_ACTION[procedure];
  return Object.assign(call, {
    /** itNeedsEndpointPermission: `others` are grants beside the action that do not stand in for it. */
    itNeedsPermission(leaving: string, others: string[]): void {
      itNeedsEndpointPermission(api, workspace, { action, others, leaving, call, unchanged });
    },
    /** The audit log names the endpoint alone, in a workspace of the test's own. */
    itAuditsByEndpointId(): void {
      it('records the call in the audit log by the endpoint id', async () => {
        const { workspaceId, rootKey } = await api.workspace();
        const { endpointId } = await createTestEndpoint(api, rootKey);
        await call(endpointId, rootKey);
        expect(await auditEntries(api.em(), workspaceId, procedure)).toEqual([{ resources: { endpointId } }]);
      });
    },
    /**
     * Another workspace's endpoint: a 404, even to a root key granted the action on it by id, and
     * left as it was (`outcome` says how), with no endpoint gone anywhere.
     */
    itHidesOtherWorkspaces(outcome: string): void {
      it(`another workspace's endpoint is not found and ${outcome}, whatever the grants`, async () => {
        const other = await api.workspace();
        const endpoint = await createTestEndpoint(api, other.rootKey);
        const before = await countWebhookRows(api.em(), 'webhook_endpoints');
        expectProblem(await call(endpoint.endpointId), 404, 'service/data/webhook_endpoint_not_found');
        const { rootKey } = await workspace.rootKeyWith([`webhook.${endpoint.endpointId}.${action}`]);
        expect((await call(endpoint.endpointId, rootKey)).status).toBe(404);
        expect(await countWebhookRows(api.em(), 'webhook_endpoints')).toBe(before);
        await unchanged(endpoint);
      });
    },
  });
}

/**
 * The 403s and 200s of a procedure on one endpoint (`call`), which takes `webhook.<endpointId>.<action>`
 * or `webhook.*.<action>`: without either (no grant, the `others`, the grant for another endpoint)
 * a 403 naming the endpoint's own, and `unchanged` finds the endpoint as it was; with either a 200.
 */
export function itNeedsEndpointPermission(
  api: Api,
  workspace: TestWorkspace,
  spec: {
    action: string;
    others: string[];
    /** What the title says the refused calls left alone: `deleting nothing`. */
    leaving: string;
    call: (endpointId: string, rootKey: string) => Promise<Reply<unknown>>;
    unchanged: (endpoint: { endpointId: string; secret: string }) => Promise<void>;
  },
): void {
  it(`without webhook.<endpointId>.${spec.action} or the wildcard, naming it, ${spec.leaving}`, async () => {
    const endpoint = await createTestEndpoint(api, workspace.rootKey);
    for (const grants of [[], spec.others, [`webhook.whep_x.${spec.action}`]]) {
      const { rootKey } = await workspace.rootKeyWith(grants);
      const reply = await spec.call(endpoint.endpointId, rootKey);
      expectMissingPermissions(reply, `webhook.${endpoint.endpointId}.${spec.action}`);
    }
    await spec.unchanged(endpoint);
  });

  it('not with either of them', async () => {
    for (const grant of [`webhook.<id>.${spec.action}`, `webhook.*.${spec.action}`]) {
      const { endpointId } = await createTestEndpoint(api, workspace.rootKey);
      const { rootKey } = await workspace.rootKeyWith([grant.replace('<id>', endpointId)]);
      expect((await spec.call(endpointId, rootKey)).status).toBe(200);
    }
  });
}

/** The 404 of an endpoint id the workspace does not have. */
export function expectEndpointNotFound(reply: Reply<unknown>, endpointId: string): void {
  expectProblem(reply, 404, 'service/data/webhook_endpoint_not_found');
  expect(reply.body.error.detail).toBe(`The webhook endpoint '${endpointId}' was not found.`);
}

/** Queues a test event for the endpoint and answers the id of its delivery. */
export async function sendTestEvent(api: Api, em: EntityManager, rootKey: string, endpointId: string) {
  const reply = await api.call('webhooks.sendTest', { endpointId }, rootKey);
  if (reply.status !== 200) throw new Error(`sendTest failed: ${JSON.stringify(reply.body)}`);
  const [latest] = await storedTestDeliveries(em, endpointId);
  if (!latest) throw new Error('sendTest queued no delivery');
  return latest.id;
}

export interface StoredEndpoint {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  api_ids: string[] | null;
  secret: string;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  credits_low_threshold: number | null;
  credits_low_percent: number | null;
  expiring_notice_ms: string;
}

export async function storedEndpoint(em: EntityManager, endpointId: string): Promise<StoredEndpoint | undefined> {
  const [found] = await rows(
    em,
    sql<StoredEndpoint>`
      select id, workspace_id, url, description, event_types, api_ids, secret, enabled, disabled_reason,
             failing_since, credits_low_threshold, credits_low_percent, expiring_notice_ms::text
        from webhook_endpoints where id = ${endpointId}`,
  );
  return found;
}

/**
 * The endpoint's deliveries of test events (other events, such as the `rootkey.created` of the
 * root keys a test makes, are left out), newest first, with their events.
 */
export async function storedTestDeliveries(em: EntityManager, endpointId: string) {
  return rows(
    em,
    sql<{ id: string; event_id: string; workspace_id: string; type: string; payload: Record<string, unknown> }>`
      select d.id, d.event_id, d.workspace_id, e.type, e.payload
        from webhook_deliveries d join webhook_events e on e.id = d.event_id
       where d.endpoint_id = ${endpointId} and e.type = 'webhook.test' order by d.id desc`,
  );
}

export async function countWebhookRows(
  em: EntityManager,
  table: 'webhook_endpoints' | 'webhook_events' | 'webhook_deliveries',
) {
  const [found] = await rows(em, sql<{ count: number }>`select count(*)::int as count from ${sql.table(table)}`);
  return found?.count ?? 0;
}

/** What the delivery worker does to an endpoint failing for days: disables it and says why. */
export async function disableAsFailing(em: EntityManager, endpointId: string, reason: string) {
  await rows(
    em,
    sql`update webhook_endpoints set enabled = false, disabled_reason = ${reason}, failing_since = now() - interval '6 days'
         where id = ${endpointId}`,
  );
}

/** The audit log's entries for one procedure in a workspace, as stored. */
export async function auditEntries(em: EntityManager, workspaceId: string, event: string) {
  return rows(
    em,
    sql<{ resources: Record<string, string> }>`
      select resources from audit_events where workspace_id = ${workspaceId} and event = ${event} order by id`,
  );
}

export interface LoggedAttempt {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
}

/**
 * A delivery as the worker leaves it once it is done (succeeded or failed for good), with its
 * attempts: the worker does not touch it again, so a test can read it back exactly.
 */
export async function storeFinishedDelivery(
  em: EntityManager,
  endpoint: { workspaceId: string; endpointId: string },
  state: 'succeeded' | 'failed',
  attempts: LoggedAttempt[],
) {
  const eventId = newId('webhookEvent');
  const deliveryId = newId('webhookDelivery');
  const payload = {
    type: 'key.deleted',
    timestamp: '2026-11-25T06:00:00.000Z',
    data: { keyId: 'key_gone', apiId: 'api_gone', permanent: true },
  };
  await em.transactional(async (tx) => {
    await rows(
      tx,
      sql`insert into webhook_events (id, workspace_id, type, payload, created_at)
          values (${eventId}, ${endpoint.workspaceId}, 'key.deleted', ${JSON.stringify(payload)}::jsonb, now())`,
    );
    await rows(
      tx,
      sql`insert into webhook_deliveries (id, event_id, endpoint_id, workspace_id, state, attempts, next_attempt_at, created_at, completed_at)
          values (${deliveryId}, ${eventId}, ${endpoint.endpointId}, ${endpoint.workspaceId}, ${state}, ${attempts.length}, now(), now(), now())`,
    );
    for (const attempt of attempts) {
      await rows(
        tx,
        sql`insert into webhook_attempts (delivery_id, attempted_at, status_code, error, response_body, duration_ms)
            values (${deliveryId}, now(), ${attempt.statusCode}, ${attempt.error}, ${attempt.responseBody}, ${attempt.durationMs})`,
      );
    }
  });
  return { deliveryId, eventId, payload };
}

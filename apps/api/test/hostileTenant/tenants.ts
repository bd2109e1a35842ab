import { bootstrapWorkspace, issueRootKey } from '@keyplane/core';
import { rootKeyStore, rows, sql, workspaceStore } from '@keyplane/db';
import {
  eventTransaction,
  type RatelimitEvent,
  ratelimitTable,
  type VerificationEvent,
  verificationTable,
} from '@keyplane/events';
import { writeEvents } from '@keyplane/events/testing';
import { adminQuery } from '@keyplane/testing';
import { afterAll, beforeAll } from 'vitest';
import { filledBeforeAll } from '../filledBeforeAll.ts';
import { bootstrapRootKey, type ServerProcess, startServerProcess } from '../serverProcess.ts';

// The hostile-tenant suite: a real server process, the workspace of its bootstrap root key as the
// attacker, and a victim workspace whose rows a test adds and removes, so that every answer can be
// compared with and without them.

export interface Tenant {
  workspaceId: string;
  /** A root key holding every permission of the workspace. */
  rootKey: string;
}

/** What the victim's rows hold that the attacker must never learn, not even a bit of it. */
export const VICTIM = {
  apiId: 'api_victim_secret',
  keyId: 'key_victim_secret',
  identityId: 'id_victim_secret',
  externalId: 'cust_B_secret',
  tag: 'secret-tag',
  namespaceId: 'rlns_victim_secret',
  identifier: 'rl_victim_secret',
  requestId: 'req_victim_secret',
};

/** The attacker's own API, whose rows it may read; and a second one, for root keys limited to the first. */
export const ATTACKER = {
  apiId: 'api_attacker',
  otherApiId: 'api_attacker_hidden',
  namespaceId: 'rlns_attacker',
  otherNamespaceId: 'rlns_attacker_hidden',
};

const EVENT_TABLES = [
  'key_verifications',
  'key_verifications_per_minute',
  'key_verifications_per_hour',
  'key_verifications_per_day',
  'key_verifications_per_month',
  'ratelimit_events',
  'ratelimit_events_per_minute',
  'ratelimit_events_per_hour',
  'ratelimit_events_per_day',
  'ratelimit_events_per_month',
];

function verification(workspaceId: string, fields: Partial<VerificationEvent> & { requestId: string }) {
  return {
    time: Date.now(),
    workspaceId,
    apiId: ATTACKER.apiId,
    keyId: 'key_attacker',
    identityId: 'id_attacker',
    externalId: 'cust_A',
    outcome: 'VALID',
    tags: ['path=/a'],
    spentCredits: 0,
    latencyMs: 1,
    ...fields,
  } satisfies VerificationEvent;
}

function decision(workspaceId: string, fields: Partial<RatelimitEvent> & { requestId: string }) {
  return {
    time: Date.now(),
    workspaceId,
    namespaceId: ATTACKER.namespaceId,
    identifier: 'rl_attacker',
    passed: true,
    limit: 10,
    remaining: 9,
    overrideId: null,
    latencyMs: 1,
    ...fields,
  } satisfies RatelimitEvent;
}

/**
 * Per test file: a server process (with `env`, on a database with these settings), the attacker's workspace with rows of its own in
 * two APIs and two namespaces, and a victim workspace without rows until `withVictimRows` adds them.
 */
export function useTenants(options: { env?: Record<string, string>; databaseSettings?: Record<string, string> } = {}) {
  let server: ServerProcess | undefined;
  let attacker: Tenant | undefined;
  let victim: Tenant | undefined;
  const tenants = filledBeforeAll<{ server: ServerProcess; attacker: Tenant; victim: Tenant }>('useTenants');
  const ready = tenants.read;

  beforeAll(async () => {
    server = await startServerProcess(options.env, async (url) => {
      const settings = Object.entries(options.databaseSettings ?? {});
      if (settings.length === 0) return;
      const name = new URL(url).pathname.slice(1);
      for (const [setting, value] of settings) {
        await adminQuery(url, `alter database "${name}" set ${setting} = '${value}'`);
      }
    });
    const orm = server.database.orm;
    const [first] = await rows(orm.em.fork(), sql<{ id: string }>`select id from workspaces`);
    if (!first) throw new Error('the server bootstrapped no workspace');
    attacker = { workspaceId: first.id, rootKey: bootstrapRootKey(server) };
    const created = await orm.em
      .fork()
      .transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'victim' }));
    victim = { workspaceId: created.workspaceId, rootKey: created.rootKey };
    tenants.fill({ server, attacker, victim });
    const own = attacker.workspaceId;
    await eventTransaction(orm, async (tx) => {
      await writeEvents(tx, verificationTable, [
        verification(own, { requestId: 'req_attacker_1' }),
        verification(own, { requestId: 'req_attacker_2', outcome: 'RATE_LIMITED', tags: [] }),
        verification(own, { requestId: 'req_attacker_3', apiId: ATTACKER.otherApiId, keyId: 'key_attacker_hidden' }),
      ]);
      await writeEvents(tx, ratelimitTable, [
        decision(own, { requestId: 'req_attacker_rl_1' }),
        decision(own, { requestId: 'req_attacker_rl_2', passed: false, remaining: 0 }),
        decision(own, {
          requestId: 'req_attacker_rl_3',
          namespaceId: ATTACKER.otherNamespaceId,
          identifier: 'rl_attacker_hidden',
        }),
      ]);
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  return Object.assign(tenants.fields('server', 'attacker', 'victim'), {
    /** A root key of the attacker's workspace with exactly these permissions. */
    async attackerKeyWith(permissions: string[]): Promise<string> {
      const { server, attacker } = ready();
      const issued = await server.database.orm.em
        .fork()
        .transactional((tx) => issueRootKey(rootKeyStore(tx), { workspaceId: attacker.workspaceId, permissions }));
      return issued.rootKey;
    },
    /**
     * Runs `use` while rows holding every VICTIM value (raw events and rollups of both datasets)
     * exist: in the victim's workspace, or (`'hidden API'`) in the attacker's own second API and
     * namespace, which a root key limited to its first ones may not read. Removes them afterwards.
     */
    async withVictimRows<T>(where: 'other workspace' | 'hidden API', use: () => Promise<T>): Promise<T> {
      const { server, attacker, victim } = ready();
      const orm = server.database.orm;
      const [workspaceId, apiId, namespaceId] =
        where === 'other workspace'
          ? [victim.workspaceId, VICTIM.apiId, VICTIM.namespaceId]
          : [attacker.workspaceId, ATTACKER.otherApiId, ATTACKER.otherNamespaceId];
      // A day on: the rows land in a partition of their own, read by whatever plan suits a small one.
      const time = Date.now() + 86_400_000;
      await eventTransaction(orm, async (tx) => {
        await writeEvents(tx, verificationTable, [
          verification(workspaceId, {
            time,
            requestId: VICTIM.requestId,
            apiId,
            keyId: VICTIM.keyId,
            identityId: VICTIM.identityId,
            externalId: VICTIM.externalId,
            tags: [VICTIM.tag],
          }),
        ]);
        await writeEvents(tx, ratelimitTable, [
          decision(workspaceId, { time, requestId: VICTIM.requestId, namespaceId, identifier: VICTIM.identifier }),
        ]);
      });
      await analyze(orm);
      try {
        return await use();
      } finally {
        await removeVictimRows(orm, workspaceId);
        await analyze(orm);
      }
    },
  });
}

/** Statistics of the event tables as autovacuum gathers them: the planner's choices follow the rows. */
async function analyze(orm: ServerProcess['database']['orm']) {
  await rows(orm.em.fork(), sql`analyze ${sql.raw(EVENT_TABLES.join(', '))}`);
}

/** Removes the rows holding VICTIM values from a workspace: raw events and rollups alike. */
async function removeVictimRows(orm: ServerProcess['database']['orm'], workspaceId: string) {
  const em = orm.em.fork();
  for (const table of EVENT_TABLES) {
    const [column, secret] = table.startsWith('key_') ? ['key_id', VICTIM.keyId] : ['identifier', VICTIM.identifier];
    await rows(
      em,
      sql`delete from ${sql.table(table)} where workspace_id = ${workspaceId} and ${sql.ref(column)} = ${secret}`,
    );
  }
}

export interface Answer {
  status: number;
  type?: string;
  detail?: string;
  data?: unknown;
}

/** A query's answer as a caller sees it: status, error type and detail, or the rows. */
export async function answerTo(
  server: { url: string },
  procedure: 'analytics.getVerifications' | 'analytics.getRatelimits',
  query: string,
  rootKey: string,
): Promise<Answer> {
  const response = await fetch(`${server.url}/v2/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { data?: unknown; error?: { type: string; detail: string } };
  return body.error
    ? { status: response.status, type: body.error.type, detail: body.error.detail }
    : { status: response.status, data: body.data };
}

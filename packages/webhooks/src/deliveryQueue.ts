import { type EntityManager, rows, sql, typed } from '@keyplane/db';

/** A delivery a node has claimed, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  workspaceId: string;
  /** This attempt's number, from 1. */
  attempt: number;
  eventId: string;
  payload: string;
  endpointId: string;
  url: string;
  secret: string;
}

export interface ClaimOptions {
  /** How many deliveries to claim at most. */
  count: number;
  /**
   * How many of each workspace's oldest due deliveries are candidates; those already claimed
   * elsewhere count, so a workspace has at most about this many under way across all nodes.
   */
  perWorkspace: number;
  /** Workspaces to pass over (those at their bound of deliveries under way on the caller's node). */
  skipWorkspaces?: readonly string[];
}

/**
 * Locks up to `count` due deliveries in `tx` (SKIP LOCKED: other nodes claim others) for the
 * caller to send and record in the same transaction. Workspaces take turns: the candidates are the
 * `perWorkspace` oldest due deliveries of each workspace with pending ones (found one index probe
 * per workspace), taken first by their rank within their workspace, then by due time, so a
 * workspace's backlog does not delay another's next event by more than a turn (docs/webhooks.md,
 * Delivery). A node killed mid-delivery rolls back: its deliveries are free again at once and no
 * attempt of theirs counts. Deliveries of a disabled endpoint wait, and go out if it is enabled
 * again. The endpoint is held too (KEY SHARE: its updates and other nodes' deliveries go on), so
 * that deleting it waits for the delivery rather than take the endpoint first and deadlock with the
 * attempt's update of it; an endpoint being deleted is skipped.
 */
export async function claimDueDeliveries(tx: EntityManager, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  // Raw: a recursive walk of the workspaces and locks taken with SKIP LOCKED.
  const claimed = await rows<{
    id: string;
    workspace_id: string;
    attempts: number;
    event_id: string;
    payload: string;
    endpoint_id: string;
    url: string;
    secret: string;
  }>(
    tx,
    sql`with recursive pending_workspaces as (
          (select workspace_id from webhook_deliveries where state = 'pending' order by workspace_id limit 1)
          union all
          select (select d.workspace_id from webhook_deliveries d
                   where d.state = 'pending' and d.workspace_id > w.workspace_id
                   order by d.workspace_id limit 1)
            from pending_workspaces w where w.workspace_id is not null
        ),
        candidates as (
          select c.id, c.next_attempt_at, c.turn
            from pending_workspaces w
            cross join lateral (
              select d.id, d.next_attempt_at, row_number() over (order by d.next_attempt_at) as turn
                from webhook_deliveries d join webhook_endpoints ep on ep.id = d.endpoint_id
               where d.state = 'pending' and d.workspace_id = w.workspace_id
                 and d.next_attempt_at <= now() and ep.enabled
               order by d.next_attempt_at
               limit ${options.perWorkspace}
            ) c
           where w.workspace_id is not null
             and w.workspace_id <> all(${[...(options.skipWorkspaces ?? [])]}::text[])
        ),
        claimed as (
          select d.id, d.workspace_id, d.attempts, d.event_id, ep.id as endpoint_id, ep.url, ep.secret,
                 c.turn, c.next_attempt_at
            from candidates c
            join webhook_deliveries d on d.id = c.id
            join webhook_endpoints ep on ep.id = d.endpoint_id
           where d.state = 'pending' and d.next_attempt_at <= now() and ep.enabled
           order by c.turn, c.next_attempt_at
           limit ${options.count}
           for update of d skip locked
           for key share of ep skip locked
        )
        -- The events of the claimed deliveries alone, each by its key.
        select claimed.*, ev.payload::text as payload
          from claimed join webhook_events ev on ev.id = claimed.event_id
         order by claimed.turn, claimed.next_attempt_at`,
  );
  return claimed.map((row) => ({
    id: row.id,
    workspaceId: row.workspace_id,
    attempt: row.attempts + 1,
    eventId: row.event_id,
    payload: row.payload,
    endpointId: row.endpoint_id,
    url: row.url,
    secret: row.secret,
  }));
}

/** Whether any delivery is due now (to an enabled endpoint). */
export async function hasDueDeliveries(em: EntityManager): Promise<boolean> {
  const found = await typed(em)
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as ep', 'ep.id', 'd.endpoint_id')
    .select(sql.lit(1).as('due'))
    // A literal, as the partial index on pending deliveries says it.
    .where('d.state', '=', sql.lit('pending'))
    .where('d.next_attempt_at', '<=', sql<Date>`now()`)
    .where('ep.enabled', '=', true)
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}

export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
  succeeded: boolean;
  /** When to try again after a failure; null when the attempts ran out. */
  retryAt: number | null;
  /** An endpoint failing without a success for longer than this is disabled. */
  disableAfterMs: number;
}

/** What the log says of an attempt whose answer could not be stored (recordDeliveryAttempt). */
export const ATTEMPT_NOT_RECORDED = 'the answer could not be recorded';

/**
 * Logs an attempt and moves its delivery on, in the claiming transaction `tx`; a success ends the
 * endpoint's failure streak, a streak longer than `disableAfterMs` disables it and says why. When
 * the database refuses what the attempt got, the attempt is logged again without it
 * (ATTEMPT_NOT_RECORDED), inside a savepoint: the delivery moves on all the same, so a receiver's
 * answer can never roll the claim back and have the delivery sent again at once, unlogged.
 * Answers what the database refused, for the caller to report; nothing when all was recorded.
 */
export async function recordDeliveryAttempt(
  tx: EntityManager,
  delivery: ClaimedDelivery,
  outcome: AttemptOutcome,
): Promise<{ refused?: unknown }> {
  try {
    // A savepoint in the claiming transaction: a refused write rolls back to it, the claim stays.
    await tx.transactional((savepoint) => writeAttempt(savepoint, delivery, outcome), { propagation: 'nested' });
    return {};
  } catch (refused) {
    await writeAttempt(tx, delivery, { ...outcome, error: ATTEMPT_NOT_RECORDED, responseBody: null });
    return { refused };
  }
}

async function writeAttempt(tx: EntityManager, delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
  const state = outcome.succeeded ? 'succeeded' : outcome.retryAt === null ? 'failed' : 'pending';
  const retryAt = outcome.retryAt === null ? null : new Date(outcome.retryAt);
  const db = typed(tx);
  await db
    .insertInto('webhook_attempts')
    .values({
      delivery_id: delivery.id,
      attempted_at: sql<Date>`now()`,
      status_code: outcome.statusCode,
      error: outcome.error,
      response_body: outcome.responseBody,
      duration_ms: outcome.durationMs,
    })
    .execute();
  await db
    .updateTable('webhook_deliveries')
    .set({
      state,
      attempts: delivery.attempt,
      ...(retryAt === null ? {} : { next_attempt_at: retryAt }),
      completed_at: state === 'pending' ? null : sql<Date>`now()`,
    })
    .where('id', '=', delivery.id)
    .execute();
  if (outcome.succeeded) {
    await db
      .updateTable('webhook_endpoints')
      .set({ failing_since: null })
      .where('id', '=', delivery.endpointId)
      .execute();
    return;
  }
  const answer = outcome.statusCode === null ? (outcome.error ?? 'no answer') : `HTTP ${outcome.statusCode}`;
  const tooLong = sql`coalesce(failing_since, now()) <= now() - ${outcome.disableAfterMs} * interval '1 millisecond'`;
  // Every expression reads the endpoint as it was before this update.
  await db
    .updateTable('webhook_endpoints')
    .set({
      failing_since: sql<Date>`coalesce(failing_since, now())`,
      enabled: sql<boolean>`enabled and not (${tooLong})`,
      disabled_reason: sql<string | null>`case
        when enabled and ${tooLong}
        then 'Disabled after failing since ' || to_char(failing_since at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"')
             || ' without a success; the last attempt got: ' || ${answer}
        else disabled_reason end`,
    })
    .where('id', '=', delivery.endpointId)
    .execute();
}

/**
 * The expiry events that are due: `key.expiring` for keys expiring within an endpoint's notice,
 * `key.expired` for keys whose expiry passed; each once per endpoint, key and expiry date (a key
 * given a new expiry is announced again). Idempotent, so every node may run it.
 */
export async function enqueueDueExpiryEvents(em: EntityManager): Promise<number> {
  // Raw: the notices and their events in one statement (a writing CTE), so each is sent once.
  const [result] = await rows<{ count: string }>(
    em,
    sql`with candidates as (
          select e.id as endpoint_id, e.workspace_id, k.id as key_id, k.api_id, k.expires_at,
                 case when k.expires_at <= now() then 'key.expired' else 'key.expiring' end as type
            from webhook_endpoints e
            join keys k on k.workspace_id = e.workspace_id
           where e.enabled and k.deleted_at is null and k.expires_at is not null
             and k.expires_at <= now() + e.expiring_notice_ms * interval '1 millisecond'
             and k.expires_at > e.created_at - interval '1 day'
             and (e.api_ids is null or e.api_ids @> array[k.api_id::text])
             and e.event_types && array['*', case when k.expires_at <= now() then 'key.expired' else 'key.expiring' end]
        ),
        noticed as (
          insert into webhook_key_notices (endpoint_id, key_id, type, expires_at)
          select endpoint_id, key_id, type, expires_at from candidates
          on conflict do nothing
          returning endpoint_id, key_id, type, expires_at
        )
        select count(*) from (
          select keyplane_enqueue_webhook_event(c.workspace_id, n.type, c.api_id,
                   jsonb_build_object('keyId', n.key_id, 'apiId', c.api_id,
                     'expires', (extract(epoch from n.expires_at) * 1000)::bigint),
                   n.endpoint_id)
            from noticed n join candidates c using (endpoint_id, key_id, type, expires_at)
        ) enqueued`,
  );
  return Number(result?.count ?? 0);
}

import { Migration } from '@mikro-orm/migrations';

/** An id as `newId` (packages/core/src/ids.ts) mints them: the prefix, 6 bytes of milliseconds, 10 random bytes, hex. */
const NEW_ID = `
  create or replace function keyplane_new_id(p_prefix text) returns text language sql volatile as $$
    select p_prefix || '_' || lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0')
           || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20)
  $$;`;

/**
 * Writes an event into the outbox with one delivery for each enabled endpoint of the workspace
 * that wants its type (or `*`) and, when the event belongs to an API, that API (or every API).
 * Nothing is written when no endpoint wants it. Called inside the transaction of the change, so the
 * event exists exactly when the change does. `p_endpoint_id` limits it to one endpoint (test events,
 * thresholds that are each endpoint's own).
 */
const ENQUEUE = `
  create or replace function keyplane_enqueue_webhook_event(
    p_workspace_id text, p_type text, p_api_id text, p_data jsonb, p_endpoint_id text default null
  ) returns void language plpgsql as $$
  declare
    event_id text;
    endpoint record;
  begin
    for endpoint in
      select e.id from webhook_endpoints e
       where e.workspace_id = p_workspace_id and e.enabled
         and (p_endpoint_id is null or e.id = p_endpoint_id)
         and (e.event_types @> array[p_type] or e.event_types @> array['*'])
         and (p_api_id is null or e.api_ids is null or e.api_ids @> array[p_api_id])
    loop
      if event_id is null then
        event_id := keyplane_new_id('msg');
        insert into webhook_events (id, workspace_id, type, payload, created_at)
        values (event_id, p_workspace_id, p_type,
                jsonb_build_object('type', p_type, 'timestamp', to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', p_data),
                clock_timestamp());
      end if;
      insert into webhook_deliveries (id, event_id, endpoint_id, workspace_id, state, attempts, next_attempt_at, created_at)
      values (keyplane_new_id('whdl'), event_id, endpoint.id, p_workspace_id, 'pending', 0, clock_timestamp(), clock_timestamp());
    end loop;
  end
  $$;`;

/**
 * The credit events of one change of a key's balance (before, after): key.credits.low to each endpoint whose threshold it crossed (from above to at or below; once per crossing), and
 * \`key.credits.exhausted\` when it reached 0. An endpoint's threshold is its absolute one or its
 * percentage of the key's refill amount, whichever is higher.
 */
const CREDIT_CROSSINGS = `
  create or replace function keyplane_credit_crossings(
    p_workspace_id text, p_api_id text, p_key_id text, p_before float8, p_after float8, p_refill_amount float8
  ) returns void language plpgsql as $$
  declare
    endpoint record;
    threshold float8;
  begin
    if p_before is null or p_after is null or p_after >= p_before then return; end if;
    for endpoint in
      select e.id, e.event_types, e.credits_low_threshold, e.credits_low_percent from webhook_endpoints e
       where e.workspace_id = p_workspace_id and e.enabled
         and e.event_types && array['*', 'key.credits.low', 'key.credits.exhausted']
         and (e.api_ids is null or e.api_ids @> array[p_api_id])
    loop
      threshold := greatest(endpoint.credits_low_threshold::float8, endpoint.credits_low_percent * p_refill_amount / 100);
      if threshold is not null and p_before > threshold and p_after <= threshold
         and endpoint.event_types && array['*', 'key.credits.low'] then
        perform keyplane_enqueue_webhook_event(p_workspace_id, 'key.credits.low', p_api_id,
          jsonb_build_object('keyId', p_key_id, 'apiId', p_api_id, 'remaining', p_after, 'threshold', threshold), endpoint.id);
      end if;
      if p_before > 0 and p_after <= 0 and endpoint.event_types && array['*', 'key.credits.exhausted'] then
        perform keyplane_enqueue_webhook_event(p_workspace_id, 'key.credits.exhausted', p_api_id,
          jsonb_build_object('keyId', p_key_id, 'apiId', p_api_id, 'remaining', p_after), endpoint.id);
      end if;
    end loop;
  end
  $$;`;

/**
 * keyplane_spend_credits as Migration20261124150000 left it, plus the credit events of the batch:
 * the batch that crossed a threshold writes its event in its own transaction. Endpoints are looked
 * up only when the batch changed the balance.
 */
const spendCredits = (events: string) => `
      create or replace function keyplane_spend_credits(p_key_id text, p_costs float8[], p_refill_boundary timestamptz)
      returns table (available float8, remaining float8)
      language plpgsql as $$
      declare
        current_remaining float8;
        current_refill_amount float8;
        refill_due boolean;
        balance float8;
        cost float8;
        key_workspace_id text;
        key_api_id text;
      begin
        select k.credits_remaining::float8, k.refill_amount::float8,
               k.refill_amount is not null and (k.last_refill_at is null or k.last_refill_at < p_refill_boundary),
               k.workspace_id, k.api_id
          into current_remaining, current_refill_amount, refill_due, key_workspace_id, key_api_id
          from keys k where k.id = p_key_id and k.credits_remaining is not null for update;
        if not found then
          return query select null::float8, null::float8 from unnest(p_costs);
          return;
        end if;
        balance := case when refill_due then greatest(current_remaining, current_refill_amount) else current_remaining end;
        foreach cost in array p_costs loop
          available := balance;
          if cost > balance then
            remaining := null;
          else
            balance := balance - cost;
            remaining := balance;
          end if;
          return next;
        end loop;
        -- A refill is stamped even when it left the balance as it was, so it is not applied twice.
        if refill_due or balance <> current_remaining then
          update keys set credits_remaining = balance,
                          last_refill_at = case when refill_due then p_refill_boundary else last_refill_at end
           where id = p_key_id;${events}
        end if;
      end
      $$;`;

const CREDIT_EVENTS = `
          if refill_due and current_refill_amount > current_remaining then
            perform keyplane_enqueue_webhook_event(key_workspace_id, 'key.credits.refilled', key_api_id,
              jsonb_build_object('keyId', p_key_id, 'apiId', key_api_id, 'remaining', current_refill_amount));
          end if;
          perform keyplane_credit_crossings(key_workspace_id, key_api_id, p_key_id,
            case when refill_due then greatest(current_remaining, current_refill_amount) else current_remaining end,
            balance, current_refill_amount);`;

/**
 * Webhooks (docs/webhooks.md): endpoints, the outbox of events and their deliveries, the attempts'
 * log. Generated, then completed by hand: the partial index of due deliveries (the diff drops its
 * condition), the functions that write the outbox (below), and down() trimmed of the
 * event tables' partitioning, which the diff does not model.
 */
export class Migration20261125060250_webhooks extends Migration {

  override name = 'Migration20261125060250_webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_events" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "type" varchar(64) not null, "payload" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "webhook_key_notices" ("endpoint_id" varchar(64) not null, "key_id" varchar(64) not null, "type" varchar(32) not null, "expires_at" timestamptz not null, primary key ("endpoint_id", "key_id", "type", "expires_at"));`);

    this.addSql(`create table "webhook_endpoints" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "url" varchar(2048) not null, "description" varchar(255) null, "event_types" text[] not null, "api_ids" text[] null, "secret" varchar(128) not null, "enabled" boolean not null default true, "disabled_reason" text null, "failing_since" timestamptz null, "credits_low_threshold" int null, "credits_low_percent" int null, "expiring_notice_ms" bigint not null default '604800000', "created_at" timestamptz not null, "updated_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "webhook_endpoints_workspace_id_id_index" on "webhook_endpoints" ("workspace_id", "id");`);

    this.addSql(`create table "webhook_deliveries" ("id" varchar(64) not null, "event_id" varchar(64) not null, "endpoint_id" varchar(64) not null, "workspace_id" varchar(64) not null, "state" varchar(16) not null, "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "created_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where state = 'pending';`);
    this.addSql(`create index "webhook_deliveries_endpoint_id_id_index" on "webhook_deliveries" ("endpoint_id", "id");`);

    this.addSql(`create table "webhook_attempts" ("id" bigserial primary key, "delivery_id" varchar(64) not null, "attempted_at" timestamptz not null, "status_code" int null, "error" text null, "response_body" text null, "duration_ms" double precision not null);`);
    this.addSql(`create index "webhook_attempts_delivery_id_id_index" on "webhook_attempts" ("delivery_id", "id");`);

    this.addSql(`alter table "webhook_endpoints" add constraint "webhook_endpoints_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_event_id_foreign" foreign key ("event_id") references "webhook_events" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on delete cascade;`);

    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id") on delete cascade;`);
    // The expiry scan (enqueueDueExpiryEvents) reads keys by expiry, every few seconds.
    this.addSql(`create index "keys_expires_at_live_index" on "keys" ("expires_at") where expires_at is not null and deleted_at is null;`);
    this.addSql(NEW_ID);
    this.addSql(ENQUEUE);
    this.addSql(CREDIT_CROSSINGS);
    this.addSql(spendCredits(CREDIT_EVENTS));
  }

  override down(): void | Promise<void> {
    this.addSql(spendCredits(''));
    this.addSql('drop index if exists "keys_expires_at_live_index";');
    this.addSql('drop function if exists keyplane_credit_crossings(text, text, text, float8, float8, float8);');
    this.addSql('drop function if exists keyplane_enqueue_webhook_event(text, text, text, jsonb, text);');
    this.addSql('drop function if exists keyplane_new_id(text);');
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_event_id_foreign";`);
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_endpoint_id_foreign";`);
    this.addSql(`alter table "webhook_attempts" drop constraint "webhook_attempts_delivery_id_foreign";`);

    this.addSql(`drop table if exists "webhook_events" cascade;`);
    this.addSql(`drop table if exists "webhook_key_notices" cascade;`);
    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "webhook_attempts" cascade;`);
  }

}

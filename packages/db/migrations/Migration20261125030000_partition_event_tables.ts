import { Migration } from '@mikro-orm/migrations';

/** The raw event tables, their key's other column and their secondary indexes (each on top of `time`). */
const EVENT_TABLES = [
  {
    table: 'key_verifications',
    columns: `"id" bigint not null default nextval('key_verifications_id_seq'), "time" timestamptz not null,
      "request_id" varchar(64) not null, "workspace_id" varchar(64) not null, "api_id" varchar(64) not null,
      "key_id" varchar(64) not null, "identity_id" varchar(64) null, "external_id" varchar(255) null,
      "outcome" varchar(32) not null, "tags" text[] not null, "spent_credits" bigint not null default '0',
      "latency_ms" double precision not null`,
    indexes: ['workspace_id', 'key_id'],
  },
  {
    table: 'ratelimit_events',
    columns: `"id" bigint not null default nextval('ratelimit_events_id_seq'), "time" timestamptz not null,
      "request_id" varchar(64) not null, "workspace_id" varchar(64) not null, "namespace_id" varchar(64) not null,
      "identifier" varchar(512) not null, "passed" boolean not null, "limit" int not null, "remaining" int not null,
      "override_id" varchar(64) null, "latency_ms" double precision not null`,
    indexes: ['workspace_id', 'namespace_id'],
  },
];

/** The old secondary indexes, whose names the new table's take over. */
function secondaryIndexes(table: string, columns: string[]): string {
  return [...columns.map((column) => `"${table}_${column}_time_index"`), `"${table}_time_index"`].join(', ');
}

/**
 * Written by hand (entities do not declare the partitioning, so the schema diff leaves it alone):
 * the raw event tables become partitioned by day on `time`, with a DEFAULT partition for rows of
 * days without one, so that retention drops whole days instead of deleting rows
 * (docs/architecture.md, Event tables). Each table is rebuilt with its rows in this one transaction:
 * the old one renamed, the new one created with a partition for each day that has rows and the
 * next week, the rows moved, the old one dropped. Its primary key holds `time`, as PostgreSQL
 * requires of a partitioned table's keys; its ids go on from the same sequence.
 */
export class Migration20261125030000_partition_event_tables extends Migration {

  override name = 'Migration20261125030000_partition_event_tables';

  override up(): void | Promise<void> {
    this.addSql(`
      create function keyplane_create_event_partition(p_table text, p_day date) returns boolean
      language plpgsql as $$
      declare
        v_partition text := p_table || '_p' || to_char(p_day, 'YYYYMMDD');
        v_from timestamptz := p_day::timestamp at time zone 'UTC';
        v_to timestamptz := (p_day + 1)::timestamp at time zone 'UTC';
      begin
        -- Nodes creating the same day at once wait for each other, and the later ones find it made.
        perform pg_advisory_xact_lock(hashtext(v_partition));
        if to_regclass(v_partition) is not null then
          return false;
        end if;
        -- Built apart and attached: attaching locks the parent less than creating a partition of it,
        -- so writes go on meanwhile. Rows of that day already in the default partition move into it,
        -- as the default partition may not hold rows of another partition's range.
        execute format('create table %I (like %I)', v_partition, p_table);
        execute format('with moved as (delete from %I where time >= $1 and time < $2 returning *) insert into %I select * from moved',
                       p_table || '_default', v_partition) using v_from, v_to;
        execute format('alter table %I attach partition %I for values from (%L) to (%L)', p_table, v_partition, v_from, v_to);
        return true;
      end
      $$;`);
    for (const { table, columns, indexes } of EVENT_TABLES) {
      this.addSql(`alter table "${table}" rename to "${table}_unpartitioned";`);
      this.addSql(`alter table "${table}_unpartitioned" rename constraint "${table}_pkey" to "${table}_unpartitioned_pkey";`);
      this.addSql(`drop index ${secondaryIndexes(table, indexes)};`);
      this.addSql(`create table "${table}" (${columns}, primary key ("id", "time")) partition by range ("time");`);
      this.addSql(`alter sequence "${table}_id_seq" owned by "${table}"."id";`);
      for (const column of indexes) {
        this.addSql(`create index "${table}_${column}_time_index" on "${table}" ("${column}", "time");`);
      }
      this.addSql(`create index "${table}_time_index" on "${table}" using brin ("time");`);
      this.addSql(`create table "${table}_default" partition of "${table}" default;`);
      this.addSql(`
        select keyplane_create_event_partition('${table}', day)
        from (select distinct (time at time zone 'UTC')::date as day from "${table}_unpartitioned"
              union
              select generate_series(now() at time zone 'UTC', now() at time zone 'UTC' + interval '7 days', interval '1 day')::date) days
        order by day;`);
      this.addSql(`insert into "${table}" select * from "${table}_unpartitioned";`);
      this.addSql(`drop table "${table}_unpartitioned";`);
    }
  }

  override down(): void | Promise<void> {
    for (const { table, columns, indexes } of EVENT_TABLES) {
      this.addSql(`alter table "${table}" rename to "${table}_partitioned";`);
      this.addSql(`alter table "${table}_partitioned" rename constraint "${table}_pkey" to "${table}_partitioned_pkey";`);
      this.addSql(`drop index ${secondaryIndexes(table, indexes)};`);
      this.addSql(`create table "${table}" (${columns}, primary key ("id"));`);
      this.addSql(`alter sequence "${table}_id_seq" owned by "${table}"."id";`);
      for (const column of indexes) {
        this.addSql(`create index "${table}_${column}_time_index" on "${table}" ("${column}", "time");`);
      }
      this.addSql(`create index "${table}_time_index" on "${table}" using brin ("time");`);
      this.addSql(`insert into "${table}" select * from "${table}_partitioned";`);
      this.addSql(`drop table "${table}_partitioned";`);
    }
    this.addSql(`drop function if exists keyplane_create_event_partition(text, date);`);
  }

}

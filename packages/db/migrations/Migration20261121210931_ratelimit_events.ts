import { Migration } from '@mikro-orm/migrations';

export class Migration20261121210931_ratelimit_events extends Migration {

  override name = 'Migration20261121210931_ratelimit_events';

  override up(): void | Promise<void> {
    this.addSql(`create table "ratelimit_events" ("id" bigserial primary key, "time" timestamptz not null, "request_id" varchar(64) not null, "workspace_id" varchar(64) not null, "namespace_id" varchar(64) not null, "identifier" varchar(512) not null, "passed" boolean not null, "limit" int not null, "remaining" int not null, "override_id" varchar(64) null, "latency_ms" double precision not null);`);
    this.addSql(`create index "ratelimit_events_workspace_id_time_index" on "ratelimit_events" ("workspace_id", "time");`);
    this.addSql(`create index "ratelimit_events_namespace_id_time_index" on "ratelimit_events" ("namespace_id", "time");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "ratelimit_events" cascade;`);
  }

}

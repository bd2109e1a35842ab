import { Migration } from '@mikro-orm/migrations';

export class Migration20261121200301_verifications extends Migration {

  override name = 'Migration20261121200301_verifications';

  override up(): void | Promise<void> {
    this.addSql(`create table "key_verifications" ("id" bigserial primary key, "time" timestamptz not null, "request_id" varchar(64) not null, "workspace_id" varchar(64) not null, "api_id" varchar(64) not null, "key_id" varchar(64) not null, "identity_id" varchar(64) null, "external_id" varchar(255) null, "outcome" varchar(32) not null, "tags" text[] not null, "spent_credits" bigint not null default '0', "latency_ms" double precision not null);`);
    this.addSql(`create index "key_verifications_workspace_id_time_index" on "key_verifications" ("workspace_id", "time");`);
    this.addSql(`create index "key_verifications_key_id_time_index" on "key_verifications" ("key_id", "time");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "key_verifications" cascade;`);
  }

}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261121221151_dashboard extends Migration {

  override name = 'Migration20261121221151_dashboard';

  override up(): void | Promise<void> {
    this.addSql(`create table "server_secrets" ("name" varchar(64) not null, "value" bytea not null, "created_at" timestamptz not null, primary key ("name"));`);

    this.addSql(`create table "dashboard_sessions" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "root_key_id" varchar(64) not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "dashboard_sessions_workspace_id_index" on "dashboard_sessions" ("workspace_id");`);
    this.addSql(`create index "dashboard_sessions_root_key_id_index" on "dashboard_sessions" ("root_key_id");`);
    this.addSql(`alter table "dashboard_sessions" add constraint "dashboard_sessions_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "audit_events" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "time" timestamptz not null, "root_key_id" varchar(64) null, "event" varchar(128) not null, "resources" jsonb not null, primary key ("id"));`);
    this.addSql(`create index "audit_events_workspace_id_id_index" on "audit_events" ("workspace_id", "id");`);

    this.addSql(`alter table "dashboard_sessions" add constraint "dashboard_sessions_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "dashboard_sessions" add constraint "dashboard_sessions_root_key_id_foreign" foreign key ("root_key_id") references "root_keys" ("id") on delete cascade;`);

    this.addSql(`alter table "audit_events" add constraint "audit_events_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "server_secrets" cascade;`);
    this.addSql(`drop table if exists "dashboard_sessions" cascade;`);
    this.addSql(`drop table if exists "audit_events" cascade;`);
  }

}

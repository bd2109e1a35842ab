import { Migration } from '@mikro-orm/migrations';

/**
 * Customer key portals (docs/portal.md): a portal per API, its customers' sessions (the code and the
 * access token stored as SHA-256 only), and the customer behind an audited change.
 */
export class Migration20261202120000_portals extends Migration {

  override name = 'Migration20261202120000_portals';

  override up(): void | Promise<void> {
    this.addSql(`create table "portals" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "api_id" varchar(64) not null, "display_name" varchar(255) not null, "slug" varchar(64) not null, "logo_url" varchar(2048) null, "primary_color" varchar(7) null, "support_url" varchar(2048) null, "enabled" boolean not null default true, "key_policy" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz null, "deleted_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "portals_api_id_index" on "portals" ("api_id");`);
    this.addSql(`create index "portals_workspace_id_id_index" on "portals" ("workspace_id", "id");`);
    this.addSql(`create unique index "portals_live_slug_unique" on "portals" ("workspace_id", "slug") where "deleted_at" is null;`);
    this.addSql(`alter table "portals" add constraint "portals_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "portals" add constraint "portals_api_id_foreign" foreign key ("api_id") references "apis" ("id") on delete cascade;`);

    this.addSql(`create table "portal_sessions" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "portal_id" varchar(64) not null, "external_id" varchar(255) not null, "scopes" text[] not null, "preview" boolean not null default false, "return_url" varchar(2048) null, "code_hash" varchar(64) not null, "code_expires_at" timestamptz not null, "access_token_hash" varchar(64) null, "access_expires_at" timestamptz null, "created_by_root_key_id" varchar(64) null, "exchanged_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "portal_sessions" add constraint "portal_sessions_code_hash_unique" unique ("code_hash");`);
    this.addSql(`alter table "portal_sessions" add constraint "portal_sessions_access_token_hash_unique" unique ("access_token_hash");`);
    this.addSql(`create index "portal_sessions_portal_id_external_id_index" on "portal_sessions" ("portal_id", "external_id");`);
    this.addSql(`create index "portal_sessions_workspace_id_id_index" on "portal_sessions" ("workspace_id", "id");`);
    this.addSql(`alter table "portal_sessions" add constraint "portal_sessions_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "portal_sessions" add constraint "portal_sessions_portal_id_foreign" foreign key ("portal_id") references "portals" ("id") on delete cascade;`);

    this.addSql(`alter table "audit_events" add column "actor_external_id" varchar(255) null, add column "actor_portal_id" varchar(64) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "portal_sessions" cascade;`);
    this.addSql(`drop table if exists "portals" cascade;`);
    this.addSql(`alter table "audit_events" drop column "actor_external_id", drop column "actor_portal_id";`);
  }

}

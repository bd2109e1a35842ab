import { Migration } from '@mikro-orm/migrations';

/**
 * Team accounts: people (users), their roles in workspaces (memberships), invitations, sign-in
 * sessions, passkeys and the first-run setup links. Tokens are stored as SHA-256 hashes only.
 */
export class Migration20261130120000_team_accounts extends Migration {

  override name = 'Migration20261130120000_team_accounts';

  override up(): void | Promise<void> {
    this.addSql(`create table "setup_links" ("token_hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("token_hash"));`);

    this.addSql(`create table "users" ("id" varchar(64) not null, "email" varchar(320) not null, "name" varchar(255) not null, "password_hash" varchar(255) null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create unique index "users_email_lower_unique" on "users" (lower("email"));`);

    this.addSql(`create table "passkeys" ("id" varchar(64) not null, "user_id" varchar(64) not null, "credential_id" varchar(1400) not null, "public_key" bytea not null, "counter" bigint not null default '0', "transports" text[] not null default '{}', "name" varchar(255) not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "passkeys_user_id_index" on "passkeys" ("user_id");`);
    this.addSql(`alter table "passkeys" add constraint "passkeys_credential_id_unique" unique ("credential_id");`);

    this.addSql(`create table "user_sessions" ("id" varchar(64) not null, "user_id" varchar(64) not null, "workspace_id" varchar(64) not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, "idle_expires_at" timestamptz not null, "absolute_expires_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "user_sessions_workspace_id_index" on "user_sessions" ("workspace_id");`);
    this.addSql(`alter table "user_sessions" add constraint "user_sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "user_sessions_user_id_workspace_id_index" on "user_sessions" ("user_id", "workspace_id");`);

    this.addSql(`create table "memberships" ("workspace_id" varchar(64) not null, "user_id" varchar(64) not null, "role" text not null, "created_at" timestamptz not null, "last_sign_in_at" timestamptz null, primary key ("workspace_id", "user_id"));`);
    this.addSql(`create index "memberships_user_id_index" on "memberships" ("user_id");`);

    this.addSql(`create table "invitations" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "email" varchar(320) not null, "role" text not null, "token_hash" varchar(64) not null, "invited_by_user_id" varchar(64) null, "expires_at" timestamptz not null, "accepted_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "invitations" add constraint "invitations_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "invitations_invited_by_user_id_index" on "invitations" ("invited_by_user_id");`);
    this.addSql(`create index "invitations_workspace_id_id_index" on "invitations" ("workspace_id", "id");`);

    this.addSql(`alter table "passkeys" add constraint "passkeys_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);

    this.addSql(`alter table "user_sessions" add constraint "user_sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);
    this.addSql(`alter table "user_sessions" add constraint "user_sessions_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);

    this.addSql(`alter table "memberships" add constraint "memberships_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "memberships" add constraint "memberships_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "memberships" add constraint "memberships_role_check" check ("role" in ('owner', 'admin', 'member', 'viewer'));`);

    this.addSql(`alter table "invitations" add constraint "invitations_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "invitations" add constraint "invitations_invited_by_user_id_foreign" foreign key ("invited_by_user_id") references "users" ("id") on delete set null;`);
    this.addSql(`alter table "invitations" add constraint "invitations_role_check" check ("role" in ('owner', 'admin', 'member', 'viewer'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "setup_links" cascade;`);
    this.addSql(`drop table if exists "passkeys" cascade;`);
    this.addSql(`drop table if exists "user_sessions" cascade;`);
    this.addSql(`drop table if exists "invitations" cascade;`);
    this.addSql(`drop table if exists "memberships" cascade;`);
    this.addSql(`drop table if exists "users" cascade;`);
  }

}

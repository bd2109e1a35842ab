import { Migration } from '@mikro-orm/migrations';

export class Migration20261121194930_initial extends Migration {

  override name = 'Migration20261121194930_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "workspaces" ("id" varchar(64) not null, "name" varchar(255) not null, "created_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));`);

    this.addSql(`create table "vault_keys" ("workspace_id" varchar(64) not null, "wrapped_key" text not null, "created_at" timestamptz not null, primary key ("workspace_id"));`);

    this.addSql(`create table "root_keys" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "name" varchar(255) null, "hash" varchar(64) not null, "start" varchar(32) not null, "permissions" text[] not null, "created_at" timestamptz not null, "expires_at" timestamptz null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "root_keys_workspace_id_index" on "root_keys" ("workspace_id");`);
    this.addSql(`alter table "root_keys" add constraint "root_keys_hash_unique" unique ("hash");`);

    this.addSql(`create table "roles" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "name" varchar(128) not null, "description" varchar(512) null, "created_at" timestamptz not null, "updated_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "roles" add constraint "roles_workspace_id_name_unique" unique ("workspace_id", "name");`);

    this.addSql(`create table "ratelimit_namespaces" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "name" varchar(512) not null, "created_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "ratelimit_namespaces" add constraint "ratelimit_namespaces_workspace_id_name_unique" unique ("workspace_id", "name");`);

    this.addSql(`create table "ratelimit_overrides" ("id" varchar(64) not null, "namespace_id" varchar(64) not null, "identifier" varchar(512) not null, "limit" int not null, "duration_ms" bigint not null, "created_at" timestamptz not null, "updated_at" timestamptz null, "deleted_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create unique index "ratelimit_overrides_live_unique" on "ratelimit_overrides" ("namespace_id", "identifier") where "deleted_at" is null;`);

    this.addSql(`create table "permissions" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "name" varchar(512) not null, "slug" varchar(128) not null, "description" varchar(512) null, "created_at" timestamptz not null, "updated_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "permissions" add constraint "permissions_workspace_id_slug_unique" unique ("workspace_id", "slug");`);

    this.addSql(`create table "roles_permissions" ("role_id" varchar(64) not null, "permission_id" varchar(64) not null, "created_at" timestamptz not null, primary key ("role_id", "permission_id"));`);
    this.addSql(`create index "roles_permissions_permission_id_index" on "roles_permissions" ("permission_id");`);

    this.addSql(`create table "key_migrations" ("id" varchar(255) not null, "workspace_id" varchar(64) not null, "algorithm" varchar(64) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "key_migrations_workspace_id_index" on "key_migrations" ("workspace_id");`);

    this.addSql(`create table "identities" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "external_id" varchar(255) not null, "meta" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz null, "deleted_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "identities_workspace_id_id_index" on "identities" ("workspace_id", "id");`);
    this.addSql(`create unique index "identities_live_external_id_unique" on "identities" ("workspace_id", "external_id") where "deleted_at" is null;`);

    this.addSql(`create table "apis" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "name" varchar(255) not null, "key_auth_enabled" boolean not null default true, "encryption_enabled" boolean not null default false, "default_prefix" varchar(16) null, "default_bytes" int null, "delete_protection" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz null, "deleted_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "apis_workspace_id_id_index" on "apis" ("workspace_id", "id");`);

    this.addSql(`create table "keys" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "api_id" varchar(64) not null, "hash" varchar(128) not null, "start" varchar(64) not null, "name" varchar(255) null, "identity_id" varchar(64) null, "meta" jsonb null, "expires_at" timestamptz null, "enabled" boolean not null default true, "credits_remaining" bigint null, "refill_interval" varchar(16) null, "refill_amount" bigint null, "refill_day" smallint null, "last_refill_at" timestamptz null, "ciphertext" text null, "pending_migration_id" varchar(255) null, "created_at" timestamptz not null, "updated_at" timestamptz null, "last_used_at" timestamptz null, "deleted_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "keys" add constraint "keys_hash_unique" unique ("hash");`);
    this.addSql(`create index "keys_identity_id_index" on "keys" ("identity_id");`);
    this.addSql(`create index "keys_api_id_id_index" on "keys" ("api_id", "id");`);
    this.addSql(`create index "keys_workspace_id_id_index" on "keys" ("workspace_id", "id");`);

    this.addSql(`create table "ratelimits" ("id" varchar(64) not null, "workspace_id" varchar(64) not null, "key_id" varchar(64) null, "identity_id" varchar(64) null, "name" varchar(128) not null, "limit" int not null, "duration_ms" bigint not null, "auto_apply" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "ratelimits" add constraint "ratelimits_key_id_name_unique" unique ("key_id", "name");`);
    this.addSql(`alter table "ratelimits" add constraint "ratelimits_identity_id_name_unique" unique ("identity_id", "name");`);

    this.addSql(`create table "keys_roles" ("key_id" varchar(64) not null, "role_id" varchar(64) not null, "created_at" timestamptz not null, primary key ("key_id", "role_id"));`);
    this.addSql(`create index "keys_roles_role_id_index" on "keys_roles" ("role_id");`);

    this.addSql(`create table "keys_permissions" ("key_id" varchar(64) not null, "permission_id" varchar(64) not null, "created_at" timestamptz not null, primary key ("key_id", "permission_id"));`);
    this.addSql(`create index "keys_permissions_permission_id_index" on "keys_permissions" ("permission_id");`);

    this.addSql(`alter table "vault_keys" add constraint "vault_keys_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "root_keys" add constraint "root_keys_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);

    this.addSql(`alter table "roles" add constraint "roles_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);

    this.addSql(`alter table "ratelimit_namespaces" add constraint "ratelimit_namespaces_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);

    this.addSql(`alter table "ratelimit_overrides" add constraint "ratelimit_overrides_namespace_id_foreign" foreign key ("namespace_id") references "ratelimit_namespaces" ("id") on delete cascade;`);

    this.addSql(`alter table "permissions" add constraint "permissions_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);

    this.addSql(`alter table "roles_permissions" add constraint "roles_permissions_role_id_foreign" foreign key ("role_id") references "roles" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "roles_permissions" add constraint "roles_permissions_permission_id_foreign" foreign key ("permission_id") references "permissions" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "key_migrations" add constraint "key_migrations_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);

    this.addSql(`alter table "identities" add constraint "identities_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);

    this.addSql(`alter table "apis" add constraint "apis_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);

    this.addSql(`alter table "keys" add constraint "keys_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "keys" add constraint "keys_api_id_foreign" foreign key ("api_id") references "apis" ("id") on delete cascade;`);
    this.addSql(`alter table "keys" add constraint "keys_identity_id_foreign" foreign key ("identity_id") references "identities" ("id") on delete set null;`);

    this.addSql(`alter table "ratelimits" add constraint "ratelimits_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`);
    this.addSql(`alter table "ratelimits" add constraint "ratelimits_key_id_foreign" foreign key ("key_id") references "keys" ("id") on delete cascade;`);
    this.addSql(`alter table "ratelimits" add constraint "ratelimits_identity_id_foreign" foreign key ("identity_id") references "identities" ("id") on delete cascade;`);

    this.addSql(`alter table "keys_roles" add constraint "keys_roles_key_id_foreign" foreign key ("key_id") references "keys" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "keys_roles" add constraint "keys_roles_role_id_foreign" foreign key ("role_id") references "roles" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "keys_permissions" add constraint "keys_permissions_key_id_foreign" foreign key ("key_id") references "keys" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "keys_permissions" add constraint "keys_permissions_permission_id_foreign" foreign key ("permission_id") references "permissions" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "vault_keys" drop constraint "vault_keys_workspace_id_foreign";`);
    this.addSql(`alter table "root_keys" drop constraint "root_keys_workspace_id_foreign";`);
    this.addSql(`alter table "roles" drop constraint "roles_workspace_id_foreign";`);
    this.addSql(`alter table "ratelimit_namespaces" drop constraint "ratelimit_namespaces_workspace_id_foreign";`);
    this.addSql(`alter table "permissions" drop constraint "permissions_workspace_id_foreign";`);
    this.addSql(`alter table "key_migrations" drop constraint "key_migrations_workspace_id_foreign";`);
    this.addSql(`alter table "identities" drop constraint "identities_workspace_id_foreign";`);
    this.addSql(`alter table "apis" drop constraint "apis_workspace_id_foreign";`);
    this.addSql(`alter table "keys" drop constraint "keys_workspace_id_foreign";`);
    this.addSql(`alter table "ratelimits" drop constraint "ratelimits_workspace_id_foreign";`);
    this.addSql(`alter table "roles_permissions" drop constraint "roles_permissions_role_id_foreign";`);
    this.addSql(`alter table "keys_roles" drop constraint "keys_roles_role_id_foreign";`);
    this.addSql(`alter table "ratelimit_overrides" drop constraint "ratelimit_overrides_namespace_id_foreign";`);
    this.addSql(`alter table "roles_permissions" drop constraint "roles_permissions_permission_id_foreign";`);
    this.addSql(`alter table "keys_permissions" drop constraint "keys_permissions_permission_id_foreign";`);
    this.addSql(`alter table "keys" drop constraint "keys_identity_id_foreign";`);
    this.addSql(`alter table "ratelimits" drop constraint "ratelimits_identity_id_foreign";`);
    this.addSql(`alter table "keys" drop constraint "keys_api_id_foreign";`);
    this.addSql(`alter table "ratelimits" drop constraint "ratelimits_key_id_foreign";`);
    this.addSql(`alter table "keys_roles" drop constraint "keys_roles_key_id_foreign";`);
    this.addSql(`alter table "keys_permissions" drop constraint "keys_permissions_key_id_foreign";`);

    this.addSql(`drop table if exists "workspaces" cascade;`);
    this.addSql(`drop table if exists "vault_keys" cascade;`);
    this.addSql(`drop table if exists "root_keys" cascade;`);
    this.addSql(`drop table if exists "roles" cascade;`);
    this.addSql(`drop table if exists "ratelimit_namespaces" cascade;`);
    this.addSql(`drop table if exists "ratelimit_overrides" cascade;`);
    this.addSql(`drop table if exists "permissions" cascade;`);
    this.addSql(`drop table if exists "roles_permissions" cascade;`);
    this.addSql(`drop table if exists "key_migrations" cascade;`);
    this.addSql(`drop table if exists "identities" cascade;`);
    this.addSql(`drop table if exists "apis" cascade;`);
    this.addSql(`drop table if exists "keys" cascade;`);
    this.addSql(`drop table if exists "ratelimits" cascade;`);
    this.addSql(`drop table if exists "keys_roles" cascade;`);
    this.addSql(`drop table if exists "keys_permissions" cascade;`);
  }

}

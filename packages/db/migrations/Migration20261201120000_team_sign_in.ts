import { Migration } from '@mikro-orm/migrations';

/**
 * Team sign-in: the person behind an audited change, password-reset links, and a workspace's
 * choice to refuse root keys as a dashboard sign-in.
 */
export class Migration20261201120000_team_sign_in extends Migration {

  override name = 'Migration20261201120000_team_sign_in';

  override up(): void | Promise<void> {
    this.addSql(`create table "password_resets" ("id" varchar(64) not null, "user_id" varchar(64) not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "password_resets_user_id_index" on "password_resets" ("user_id");`);
    this.addSql(`alter table "password_resets" add constraint "password_resets_token_hash_unique" unique ("token_hash");`);
    this.addSql(`alter table "password_resets" add constraint "password_resets_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);

    this.addSql(`alter table "audit_events" add column "actor_user_id" varchar(64) null, add column "actor_email" varchar(320) null;`);
    this.addSql(`alter table "workspaces" add column "root_key_sign_in" boolean not null default true;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "password_resets" cascade;`);
    this.addSql(`alter table "audit_events" drop column "actor_user_id", drop column "actor_email";`);
    this.addSql(`alter table "workspaces" drop column "root_key_sign_in";`);
  }

}

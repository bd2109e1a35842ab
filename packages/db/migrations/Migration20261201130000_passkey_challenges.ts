import { Migration } from '@mikro-orm/migrations';

/**
 * Passkey challenges: each WebAuthn challenge the service hands out, by its SHA-256, so that any
 * node can check the answer, and deleted as it is used so that it is good for one answer only.
 */
export class Migration20261201130000_passkey_challenges extends Migration {

  override name = 'Migration20261201130000_passkey_challenges';

  override up(): void | Promise<void> {
    this.addSql(`create table "passkey_challenges" ("challenge_hash" varchar(64) not null, "purpose" text not null, "user_id" varchar(64) null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("challenge_hash"));`);
    this.addSql(`create index "passkey_challenges_user_id_index" on "passkey_challenges" ("user_id");`);
    this.addSql(`create index "passkey_challenges_expires_at_index" on "passkey_challenges" ("expires_at");`);
    this.addSql(`alter table "passkey_challenges" add constraint "passkey_challenges_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);
    this.addSql(`alter table "passkey_challenges" add constraint "passkey_challenges_purpose_check" check ("purpose" in ('registration', 'sign_in'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "passkey_challenges" cascade;`);
  }

}

import { Migration } from '@mikro-orm/migrations';

/**
 * The marks of spooled events already written to PostgreSQL. Generated, then trimmed: the schema
 * diff also wanted to drop the workspace rate limit's check constraint and `keyplane_spend_credits`,
 * which it does not model.
 */
export class Migration20261124212806_event_spool_marks extends Migration {

  override name = 'Migration20261124212806_event_spool_marks';

  override up(): void | Promise<void> {
    this.addSql(`create table "event_spool_marks" ("owner" varchar(32) not null, "first_position" bigint not null, "last_position" bigint not null, "created_at" timestamptz not null, primary key ("owner", "first_position"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "event_spool_marks" cascade;`);
  }

}

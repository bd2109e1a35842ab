import { Migration } from '@mikro-orm/migrations';

/**
 * Audit events say what they changed (names, and each setting before and after) and from which
 * address. Both columns are nullable: events recorded before stay as they were.
 */
export class Migration20261129120000_audit_details extends Migration {

  override name = 'Migration20261129120000_audit_details';

  override up(): void | Promise<void> {
    this.addSql(`alter table "audit_events" add "details" jsonb null, add "client_address" varchar(64) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "audit_events" drop column "details", drop column "client_address";`);
  }

}

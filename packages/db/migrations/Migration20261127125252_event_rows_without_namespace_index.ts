import { Migration } from '@mikro-orm/migrations';

/**
 * Drops the (namespace, time) index of the raw rate-limit decisions: every decision paid for it, a
 * third of what PostgreSQL spent on its row, for the raw analytics queries of one namespace, which
 * the (workspace, time) index serves (docs/architecture.md, Event tables). Generated, then trimmed:
 * the generated `down` rebuilt both event tables, as the schema diff does not model partitioning.
 */
export class Migration20261127125252_event_rows_without_namespace_index extends Migration {

  override name = 'Migration20261127125252_event_rows_without_namespace_index';

  override up(): void | Promise<void> {
    this.addSql(`drop index "ratelimit_events_namespace_id_time_index";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`create index "ratelimit_events_namespace_id_time_index" on "ratelimit_events" ("namespace_id", "time");`);
  }

}

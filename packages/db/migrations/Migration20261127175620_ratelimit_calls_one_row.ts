import { Migration } from '@mikro-orm/migrations';

/**
 * One row per rate-limit call instead of one per decision: a multiLimit call's decisions after the
 * first go into `further` (docs/architecture.md, Event tables). Rows written before keep their
 * meaning (no `further`: one decision). Generated, then trimmed: the generated `down` rebuilt both
 * event tables, as the schema diff does not model partitioning; this one gives each further
 * decision its row back before the column goes, so a downgrade loses none.
 */
export class Migration20261127175620_ratelimit_calls_one_row extends Migration {

  override name = 'Migration20261127175620_ratelimit_calls_one_row';

  override up(): void | Promise<void> {
    this.addSql(`alter table "ratelimit_events" add "further" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`insert into "ratelimit_events" ("time", "request_id", "workspace_id", "namespace_id", "identifier", "passed", "limit", "remaining", "override_id", "latency_ms")
      select e."time", e."request_id", e."workspace_id", f."namespaceId", f."identifier", e."passed", f."limit", f."remaining", f."overrideId", e."latency_ms"
      from "ratelimit_events" e
      cross join lateral jsonb_to_recordset(e."further") as f("namespaceId" text, "identifier" text, "limit" int, "remaining" int, "overrideId" text)
      where e."further" is not null;`);
    this.addSql(`alter table "ratelimit_events" drop column "further";`);
  }

}

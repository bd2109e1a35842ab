import { Migration } from '@mikro-orm/migrations';

/**
 * The workspace API rate limit (reference: `api_requests_count_max_per_minute`). Generated, then
 * trimmed: the schema diff also wanted to drop `keyplane_spend_credits`, which it does not model.
 */
export class Migration20261122030047_workspace_api_rate_limit extends Migration {

  override name = 'Migration20261122030047_workspace_api_rate_limit';

  override up(): void | Promise<void> {
    this.addSql(`alter table "workspaces" add "api_requests_per_minute" int null;`);
    this.addSql(`alter table "workspaces" add constraint "workspaces_api_requests_per_minute_check" check ("api_requests_per_minute" >= 0);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "workspaces" drop column "api_requests_per_minute";`);
  }

}

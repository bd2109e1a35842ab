import { Migration } from '@mikro-orm/migrations';

/**
 * The pending deliveries by workspace and due time: the delivery workers claim a few of each
 * workspace's due deliveries in turn (claimDueDeliveries), one index probe per workspace, so one
 * workspace's backlog is not sent before every other workspace's events (docs/webhooks.md,
 * Delivery). Written by hand: the diff drops the index's condition.
 */
export class Migration20261128040000_webhook_claims_by_workspace extends Migration {

  override name = 'Migration20261128040000_webhook_claims_by_workspace';

  override up(): void | Promise<void> {
    this.addSql(`create index "webhook_deliveries_due_by_workspace_index" on "webhook_deliveries" ("workspace_id", "next_attempt_at") where state = 'pending';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "webhook_deliveries_due_by_workspace_index";`);
  }

}

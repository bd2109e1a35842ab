import { Migration } from '@mikro-orm/migrations';

/**
 * Before keys.updateCredits refused increments past 2^53-1 (the largest balance a key can hold,
 * MAX_CREDITS), one could store a larger balance, and every read of that key then failed: its
 * balance is no safe integer. This brings such balances back to the largest one a key can hold.
 * Written by hand: the schema diff sees no change. down() keeps them as they are: the larger values
 * were never valid balances, and putting them back would only break those keys again.
 */
export class Migration20261124170000_clamp_oversized_credits extends Migration {

  override name = 'Migration20261124170000_clamp_oversized_credits';

  override up(): void | Promise<void> {
    this.addSql(`update keys set credits_remaining = 9007199254740991 where credits_remaining > 9007199254740991;`);
  }

  override down(): void | Promise<void> {}

}

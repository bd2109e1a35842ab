import { Migration } from '@mikro-orm/migrations';

/** The function as both versions define it; they differ only in when the key row is written. */
const spendCreditsFunction = (writeRow: string) => `
      create or replace function keyplane_spend_credits(p_key_id text, p_costs float8[], p_refill_boundary timestamptz)
      returns table (available float8, remaining float8)
      language plpgsql as $$
      declare
        current_remaining float8;
        current_refill_amount float8;
        refill_due boolean;
        balance float8;
        cost float8;
      begin
        select k.credits_remaining::float8, k.refill_amount::float8,
               k.refill_amount is not null and (k.last_refill_at is null or k.last_refill_at < p_refill_boundary)
          into current_remaining, current_refill_amount, refill_due
          from keys k where k.id = p_key_id and k.credits_remaining is not null for update;
        if not found then
          return query select null::float8, null::float8 from unnest(p_costs);
          return;
        end if;
        balance := case when refill_due then greatest(current_remaining, current_refill_amount) else current_remaining end;
        foreach cost in array p_costs loop
          available := balance;
          if cost > balance then
            remaining := null;
          else
            balance := balance - cost;
            remaining := balance;
          end if;
          return next;
        end loop;
${writeRow}
      end
      $$;`;

const UPDATE_ROW = `update keys set credits_remaining = balance,
                        last_refill_at = case when refill_due then p_refill_boundary else last_refill_at end
          where id = p_key_id;`;

/**
 * Written by hand (the schema diff does not see functions): keyplane_spend_credits writes the key
 * row only when the batch changed its balance or applied a refill. Failed verifications read a
 * limited key's balance through it with a spend of 0; rewriting the row for them would cost a new
 * row version, its index entries and its WAL on every such read. The row is still locked, so the
 * read is judged in order with concurrent spends. down() restores the previous definition.
 */
export class Migration20261124150000_spend_credits_skip_unchanged extends Migration {

  override name = 'Migration20261124150000_spend_credits_skip_unchanged';

  override up(): void | Promise<void> {
    this.addSql(
      spendCreditsFunction(`
        -- A refill is stamped even when it left the balance as it was, so it is not applied twice.
        if refill_due or balance <> current_remaining then
          ${UPDATE_ROW}
        end if;`),
    );
  }

  override down(): void | Promise<void> {
    this.addSql(spendCreditsFunction(`
        ${UPDATE_ROW}`));
  }

}

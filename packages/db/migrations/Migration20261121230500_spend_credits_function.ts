import { Migration } from '@mikro-orm/migrations';

/**
 * Written by hand (the schema diff does not see functions): a batch of credit spends for one key
 * in one statement, so a hot key's group commit is one round trip instead of a four-statement
 * transaction. Same rules as before: the row is locked, a due refill is applied first, and each
 * spend is judged in order against the balance the earlier ones left.
 */
export class Migration20261121230500_spend_credits_function extends Migration {

  override name = 'Migration20261121230500_spend_credits_function';

  override up(): void | Promise<void> {
    this.addSql(`
      create function keyplane_spend_credits(p_key_id text, p_costs float8[], p_refill_boundary timestamptz)
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
        update keys set credits_remaining = balance,
                        last_refill_at = case when refill_due then p_refill_boundary else last_refill_at end
          where id = p_key_id;
      end
      $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop function if exists keyplane_spend_credits(text, float8[], timestamptz);`);
  }

}

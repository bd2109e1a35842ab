import type { Orm } from './orm.ts';
import { rows, sql } from './sql.ts';

export interface CreditSpend {
  /** The balance the spend was judged against (after any due refill); null when the key is unlimited now. */
  available: number | null;
  /** The balance after spending; null when the spend was refused. */
  remaining: number | null;
}

interface PendingSpend {
  cost: number;
  refillBoundary: number;
  resolve: (spend: CreditSpend) => void;
  reject: (error: unknown) => void;
}

export interface CreditSpender {
  /** Spends `cost` credits if the key has them; a refill whose boundary has passed is applied first. */
  spend(keyId: string, cost: number, refillBoundary: number): Promise<CreditSpend>;
}

/**
 * Spends credits exactly and durably, at the rate a hot key needs. Every spend of one key that
 * arrives while a transaction for that key is running waits for it, and then all of them go in the
 * next transaction: the row is locked once, each spend is judged in arrival order against the
 * balance the previous ones left, and one commit makes them all durable before any is answered.
 * Across processes the row lock serialises the batches, so nothing is ever overdrawn.
 */
export function createCreditSpender(orm: Orm): CreditSpender {
  const queues = new Map<string, PendingSpend[]>();

  async function settle(keyId: string, batch: PendingSpend[]): Promise<void> {
    const refillBoundary = new Date(Math.max(...batch.map((spend) => spend.refillBoundary)));
    const outcomes = await orm.em.fork().transactional(async (tx) => {
      const [row] = await rows(
        tx,
        sql<{ remaining: number; refillAmount: number | null; refillDue: boolean }>`
          select credits_remaining::float8 as remaining, refill_amount::float8 as "refillAmount",
                 refill_amount is not null and (last_refill_at is null or last_refill_at < ${refillBoundary})
                   as "refillDue"
          from keys where id = ${keyId} and credits_remaining is not null for update`,
      );
      if (!row) return batch.map((): CreditSpend => ({ available: null, remaining: null }));
      let balance =
        row.refillDue && row.refillAmount !== null ? Math.max(row.remaining, row.refillAmount) : row.remaining;
      const decided = batch.map((spend): CreditSpend => {
        if (spend.cost > balance) return { available: balance, remaining: null };
        const available = balance;
        balance -= spend.cost;
        return { available, remaining: balance };
      });
      await rows(
        tx,
        sql`update keys set credits_remaining = ${balance},
              last_refill_at = case when ${row.refillDue} then ${refillBoundary} else last_refill_at end
            where id = ${keyId}`,
      );
      return decided;
    });
    for (const [index, spend] of batch.entries())
      spend.resolve(outcomes[index] ?? { available: null, remaining: null });
  }

  async function drain(keyId: string, queue: PendingSpend[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, queue.length);
      try {
        await settle(keyId, batch);
      } catch (error) {
        for (const spend of batch) spend.reject(error);
      }
    }
    queues.delete(keyId);
  }

  return {
    spend(keyId, cost, refillBoundary) {
      return new Promise<CreditSpend>((resolve, reject) => {
        const waiting = queues.get(keyId);
        if (waiting) {
          waiting.push({ cost, refillBoundary, resolve, reject });
          return;
        }
        const queue: PendingSpend[] = [{ cost, refillBoundary, resolve, reject }];
        queues.set(keyId, queue);
        void drain(keyId, queue);
      });
    },
  };
}

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
    // One statement (see the spend_credits_function migration): lock, refill, judge in order, update, commit.
    const outcomes = await rows(
      orm.em.fork(),
      sql<CreditSpend>`
        select available, remaining
        from keyplane_spend_credits(${keyId}, ${batch.map((spend) => spend.cost)}::float8[], ${refillBoundary})
          with ordinality as spent(available, remaining, position)
        order by position`,
    );
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

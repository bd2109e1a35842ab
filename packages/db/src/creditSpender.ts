import pg from 'pg';

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
  /** Waits for spends under way, then closes the connections. */
  close(): Promise<void>;
}

/** Spends of different keys run at once up to this many; one key's spends always run one batch at a time. */
const CONNECTIONS = 4;

/** One statement (see the spend_credits_function migration): lock, refill, judge in order, update, commit. */
const SPEND_STATEMENT = {
  // Named: each connection parses and plans it once.
  name: 'keyplane_spend_credits',
  text: `select available, remaining
         from keyplane_spend_credits($1, $2::float8[], $3) with ordinality as spent(available, remaining, position)
         order by position`,
};

/**
 * Spends credits exactly and durably, at the rate a hot key needs. Every spend of one key that
 * arrives while a transaction for that key is running waits for it, and then all of them go in the
 * next transaction: the row is locked once, each spend is judged in arrival order against the
 * balance the previous ones left, and one commit makes them all durable before any is answered.
 * Across processes the row lock serialises the batches, so nothing is ever overdrawn.
 *
 * It has connections of its own and talks to them without the ORM: this is the one statement a
 * metered verification waits for, and the ORM's query path cost it more CPU than the statement.
 */
export function createCreditSpender(databaseUrl: string): CreditSpender {
  const queues = new Map<string, PendingSpend[]>();
  /** Each key's drain while it has spends to settle: close() lets them finish. */
  const draining = new Set<Promise<void>>();
  const pool = new pg.Pool({ connectionString: databaseUrl, max: CONNECTIONS, application_name: 'keyplane_credits' });
  // An idle connection the server dropped must not take the process down; the next spend reconnects.
  pool.on('error', () => {});

  async function settle(keyId: string, batch: PendingSpend[]): Promise<void> {
    const refillBoundary = new Date(Math.max(...batch.map((spend) => spend.refillBoundary)));
    const { rows: outcomes } = await pool.query<CreditSpend>({
      ...SPEND_STATEMENT,
      values: [keyId, batch.map((spend) => spend.cost), refillBoundary],
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
        // Started once this turn of the event loop is over, so that all the spends of the key it
        // brings (a wave of verifications answered together) share the first transaction.
        const run = new Promise((turnOver) => setImmediate(turnOver))
          .then(() => drain(keyId, queue))
          .finally(() => draining.delete(run));
        draining.add(run);
      });
    },
    async close() {
      await Promise.all(draining);
      await pool.end();
    },
  };
}

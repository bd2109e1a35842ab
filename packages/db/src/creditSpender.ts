import pg from 'pg';
import { scalarArrayLiteral } from './arrayLiterals.ts';
import { type PoolUsage, poolUsageOf } from './poolUsage.ts';

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
  /** Its connections, for the metrics. */
  poolUsage(): PoolUsage;
}

/** Spends of different keys run at once up to this many; one key's spends always run one batch at a time. */
const CONNECTIONS = 4;

/**
 * The spender's connections. Their commits do not wait for PostgreSQL to flush its log to disk
 * (`synchronous_commit=off`): that wait was much of a spend transaction's cost, and a metered
 * verification waits for the transaction (docs/decisions/0008-credit-spends-without-flush-wait.md).
 * A spend is still committed before it is answered, so every node sees it at once under the same
 * row lock, and nothing is lost when Keyplane stops or crashes; only a crash of the PostgreSQL
 * server itself can forget the spends of its last moments (at most three `wal_writer_delay`s,
 * 600 ms by default), which gives those credits back to their keys and never overdraws one.
 */
export function creditSpenderPoolConfig(databaseUrl: string): pg.PoolConfig {
  return {
    connectionString: databaseUrl,
    max: CONNECTIONS,
    application_name: 'keyplane_credits',
    options: '-c synchronous_commit=off',
  };
}

/**
 * One statement (see the spend_credits migrations): lock, refill, judge in order, write the row only
 * if that changed it (spends of 0 and refused ones leave it as it is), commit. Raw and prepared on
 * a pool of its own: the credit spend (docs/decisions/0008-credit-spends-without-flush-wait.md).
 */
const SPEND_STATEMENT = {
  // Named: each connection parses and plans it once.
  name: 'keyplane_spend_credits',
  text: `select available, remaining
         from keyplane_spend_credits($1, $2::float8[], $3) with ordinality as spent(available, remaining, position)
         order by position`,
};

/**
 * Spends credits exactly, at the rate a hot key needs. Every spend of one key that
 * arrives while a transaction for that key is running waits for it, and then all of them go in the
 * next transaction: the row is locked once, each spend is judged in arrival order against the
 * balance the previous ones left, and one commit makes them all visible before any is answered.
 * Across processes the row lock serialises the batches, so nothing is ever overdrawn.
 *
 * It has connections of its own and talks to them without the ORM: this is the one statement a
 * metered verification waits for, and the ORM's query path cost it more CPU than the statement.
 */
export function createCreditSpender(databaseUrl: string): CreditSpender {
  const queues = new Map<string, PendingSpend[]>();
  /** Each key's drain while it has spends to settle: close() lets them finish. */
  const draining = new Set<Promise<void>>();
  const pool = new pg.Pool(creditSpenderPoolConfig(databaseUrl));
  // An idle connection the server dropped must not take the process down; the next spend reconnects.
  pool.on('error', () => {});

  /** One key's batch as one statement: each spend's outcome, in the batch's order. */
  async function spendBatch(keyId: string, batch: PendingSpend[]): Promise<CreditSpend[]> {
    const refillBoundary = new Date(Math.max(...batch.map((spend) => spend.refillBoundary)));
    const { rows: outcomes } = await pool.query<CreditSpend>({
      ...SPEND_STATEMENT,
      values: [keyId, scalarArrayLiteral(batch.map((spend) => spend.cost)), refillBoundary],
    });
    return batch.map((_, index) => outcomes[index] ?? { available: null, remaining: null });
  }

  async function drain(keyId: string, queue: PendingSpend[]): Promise<void> {
    let batch = queue.splice(0, queue.length);
    let spending = spendBatch(keyId, batch);
    while (batch.length > 0) {
      const settled = await spending.then(
        (outcomes) => ({ outcomes }),
        (error: unknown) => ({ error }),
      );
      const answered = batch;
      // The spends that came in meanwhile go out before this batch is answered: answering runs the
      // rest of every verification in it, and the key's next transaction need not wait for that.
      batch = queue.splice(0, queue.length);
      if (batch.length > 0) spending = spendBatch(keyId, batch);
      if ('error' in settled) {
        for (const spend of answered) spend.reject(settled.error);
      } else {
        for (const [index, spend] of answered.entries()) spend.resolve(settled.outcomes[index] as CreditSpend);
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
        // Started once the microtask queue has drained, so that all the spends of the key that a
        // wave of verifications answered together brings share the first transaction.
        const run = new Promise((drained) => process.nextTick(drained))
          .then(() => drain(keyId, queue))
          .finally(() => draining.delete(run));
        draining.add(run);
      });
    },
    async close() {
      await Promise.all(draining);
      await pool.end();
    },
    poolUsage: () => poolUsageOf(pool),
  };
}

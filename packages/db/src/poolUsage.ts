import type pg from 'pg';
import type { Orm } from './orm.ts';

/** A connection pool's state, for the metrics endpoint. */
export interface PoolUsage {
  /** Connections open, busy or idle. */
  open: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
  max: number;
}

export function poolUsageOf(pool: pg.Pool): PoolUsage {
  return { open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 };
}

/** The pool every ORM query of this process runs on. */
export async function ormPoolUsage(orm: Orm): Promise<PoolUsage> {
  const pool: pg.Pool = await orm.em.getConnection().getNativeClient();
  return poolUsageOf(pool);
}

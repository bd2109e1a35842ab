import { type Orm, pendingMigrations } from '@keyplane/db';
import type { RateLimitEngine } from '@keyplane/ratelimit';

/** A dependency that takes longer than this to answer counts as not answering. */
const CHECK_TIMEOUT_MS = 2000;

/** Whether this node should receive traffic: the reasons it should not, none when it is ready. */
export interface Readiness {
  check(): Promise<string[]>;
  /** From now on the node is not ready: it is shutting down (a balancer stops sending it requests). */
  stopping(): void;
  /** Whether `stopping` was called: every answer then closes its connection. */
  isStopping(): boolean;
}

function withinTimeout(check: Promise<unknown>, what: string): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS);
  });
  return Promise.race([
    check.then(
      () => undefined,
      (error: unknown) => `${what} failed: ${error instanceof Error ? error.message : String(error)}`,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

/**
 * Ready when PostgreSQL answers and its schema is at this version's latest migration, and Redis
 * answers when one is configured (without it rate limits would be counted per node), and the node
 * is not shutting down.
 */
export function createReadiness(options: {
  orm: Orm;
  rateLimiter: RateLimitEngine;
  redisConfigured: boolean;
}): Readiness {
  let stopping = false;
  return {
    async check() {
      if (stopping) return ['the node is shutting down'];
      const schema = pendingMigrations(options.orm).then((pending) => {
        if (pending.length > 0) throw new Error(`the schema is behind, pending: ${pending.join(', ')}`);
      });
      const reasons = await Promise.all([
        withinTimeout(options.orm.em.fork().getConnection().execute('select 1'), 'PostgreSQL'),
        withinTimeout(schema, 'the migrations check'),
        options.redisConfigured ? withinTimeout(options.rateLimiter.ping(), 'Redis') : undefined,
      ]);
      return reasons.filter((reason) => reason !== undefined);
    },
    stopping() {
      stopping = true;
    },
    isStopping: () => stopping,
  };
}

/** Tenants whose last turn is remembered; past it the longest-ago ones are forgotten (they count as never served). */
const REMEMBERED_TENANTS = 10_000;

interface Waiter {
  serve(): void;
}

/** How a `take` ended: with a turn, or why not. */
export type TakeOutcome =
  /** The caller holds a turn and must `give` it back. */
  | 'taken'
  /** No turn came free within the wait: other tenants held them all. */
  | 'busy'
  /** No turn within the wait: the tenant held as many as it may the whole time. */
  | 'tenant at its limit'
  /** Refused at once: as many of the tenant's callers as may wait are waiting. */
  | 'too many waiting';

export interface FairTurnsOptions {
  /** Turns one tenant may hold at once; its further callers wait until it gives one back. */
  perTenant?: number;
  /** Callers of one tenant that may wait at once; more are refused at once. */
  waitingPerTenant?: number;
}

/**
 * At most `capacity` holders at once (the analytics connections of a node), shared fairly among
 * tenants (workspaces), each holding at most `perTenant` of them. When a turn comes free, it goes
 * to the waiting tenant below its limit whose last turn began longest ago, one that has had none
 * first; a tenant's own callers go in arrival order. So a tenant sending query after query gets a
 * turn in each round, and never one before a tenant that waits behind it: the other waits for the
 * turns already running at most. A caller past its tenant's limit waits rather than being refused
 * at once, so that a tenant sending many at once does not turn them into a stream of refusals
 * that keeps the process busy. A caller not served within its wait gives up.
 */
export class FairTurns {
  #free: number;
  readonly #perTenant: number;
  readonly #waitingPerTenant: number;
  /** Turns each tenant holds. */
  readonly #held = new Map<string, number>();
  /** Each waiting tenant's callers, in arrival order; the Map holds tenants in the order they began to wait. */
  readonly #waiting = new Map<string, Waiter[]>();
  /** When each tenant's last turn began (a rising count); the Map holds them oldest first. */
  readonly #lastTurn = new Map<string, number>();
  #turnsGiven = 0;

  constructor(capacity: number, options: FairTurnsOptions = {}) {
    this.#free = capacity;
    this.#perTenant = options.perTenant ?? capacity;
    this.#waitingPerTenant = options.waitingPerTenant ?? Number.POSITIVE_INFINITY;
  }

  /** Resolves 'taken' once `tenant` holds a turn, or why it got none within `waitMs`. */
  take(tenant: string, waitMs: number): Promise<TakeOutcome> {
    const waiters = this.#waiting.get(tenant) ?? [];
    if (waiters.length >= this.#waitingPerTenant) return Promise.resolve('too many waiting');
    // A turn free now has no waiter that may take it (give() would have served it).
    if (this.#free > 0 && this.#heldBy(tenant) < this.#perTenant) {
      this.#serve(tenant);
      return Promise.resolve('taken');
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        serve: () => {
          clearTimeout(timer);
          resolve('taken');
        },
      };
      const timer = setTimeout(() => {
        const queued = this.#waiting.get(tenant) ?? [];
        queued.splice(queued.indexOf(waiter), 1);
        if (queued.length === 0) this.#waiting.delete(tenant);
        resolve(this.#heldBy(tenant) >= this.#perTenant ? 'tenant at its limit' : 'busy');
      }, waitMs);
      waiters.push(waiter);
      if (waiters.length === 1) this.#waiting.set(tenant, waiters);
    });
  }

  /** Callers waiting for a turn now. */
  get waiting(): number {
    let waiting = 0;
    for (const waiters of this.#waiting.values()) waiting += waiters.length;
    return waiting;
  }

  /** Gives back a turn `tenant` held: to the next waiter as above, or to the free ones. */
  give(tenant: string): void {
    const held = this.#heldBy(tenant) - 1;
    if (held > 0) this.#held.set(tenant, held);
    else this.#held.delete(tenant);
    this.#free++;
    while (this.#free > 0) {
      const next = this.#next();
      const waiter = next === undefined ? undefined : this.#waiting.get(next)?.shift();
      if (next === undefined || waiter === undefined) return;
      if (this.#waiting.get(next)?.length === 0) this.#waiting.delete(next);
      this.#serve(next);
      waiter.serve();
    }
  }

  /** The waiting tenant below its limit whose last turn began longest ago. */
  #next(): string | undefined {
    let next: string | undefined;
    let nextTurn = Number.POSITIVE_INFINITY;
    for (const tenant of this.#waiting.keys()) {
      if (this.#heldBy(tenant) >= this.#perTenant) continue;
      const lastTurn = this.#lastTurn.get(tenant) ?? Number.NEGATIVE_INFINITY;
      // Ties (tenants never served) go to the one waiting longest: the first in the Map.
      if (lastTurn < nextTurn) {
        next = tenant;
        nextTurn = lastTurn;
      }
    }
    return next;
  }

  #heldBy(tenant: string): number {
    return this.#held.get(tenant) ?? 0;
  }

  #serve(tenant: string): void {
    this.#free--;
    this.#held.set(tenant, this.#heldBy(tenant) + 1);
    this.#lastTurn.delete(tenant);
    this.#lastTurn.set(tenant, ++this.#turnsGiven);
    if (this.#lastTurn.size > REMEMBERED_TENANTS) {
      const oldest = this.#lastTurn.keys().next().value;
      if (oldest !== undefined) this.#lastTurn.delete(oldest);
    }
  }
}

/** Workspaces whose last turn is remembered; past it the longest-ago ones are forgotten (they count as never served). */
const REMEMBERED_TENANTS = 10_000;

interface Waiter {
  serve(): void;
}

/**
 * At most `capacity` holders at once (the analytics connections of a node), shared fairly among
 * tenants (workspaces): when a turn comes free, it goes to the waiting tenant whose last turn began
 * longest ago, one that has had none first; a tenant's own waiters go in arrival order. So a tenant
 * sending query after query gets a turn in each round, and never one before a tenant that waits
 * behind it: the other waits for at most the turns already running. A waiter that is not served
 * within its wait gives up.
 */
export class FairTurns {
  #free: number;
  /** Each waiting tenant's waiters, in arrival order. */
  readonly #waiting = new Map<string, Waiter[]>();
  /** When each tenant's last turn began (a rising count); the Map holds them oldest first. */
  readonly #lastTurn = new Map<string, number>();
  #turnsGiven = 0;

  constructor(capacity: number) {
    this.#free = capacity;
  }

  /** Resolves true once `tenant` holds a turn (it must `give` it back), false after `waitMs` without one. */
  take(tenant: string, waitMs: number): Promise<boolean> {
    if (this.#free > 0) {
      this.#free--;
      this.#served(tenant);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        serve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        const waiters = this.#waiting.get(tenant) ?? [];
        waiters.splice(waiters.indexOf(waiter), 1);
        if (waiters.length === 0) this.#waiting.delete(tenant);
        resolve(false);
      }, waitMs);
      const waiters = this.#waiting.get(tenant);
      if (waiters) waiters.push(waiter);
      else this.#waiting.set(tenant, [waiter]);
    });
  }

  /** Gives a turn back: to the next waiter as above, or to the free ones. */
  give(): void {
    let next: string | undefined;
    let nextTurn = Number.POSITIVE_INFINITY;
    for (const tenant of this.#waiting.keys()) {
      const lastTurn = this.#lastTurn.get(tenant) ?? Number.NEGATIVE_INFINITY;
      // Ties (tenants never served) go to the one waiting longest: the first in the Map.
      if (lastTurn < nextTurn) {
        next = tenant;
        nextTurn = lastTurn;
      }
    }
    const waiters = next === undefined ? undefined : this.#waiting.get(next);
    const waiter = waiters?.shift();
    if (next === undefined || !waiters || !waiter) {
      this.#free++;
      return;
    }
    if (waiters.length === 0) this.#waiting.delete(next);
    this.#served(next);
    waiter.serve();
  }

  #served(tenant: string): void {
    this.#lastTurn.delete(tenant);
    this.#lastTurn.set(tenant, ++this.#turnsGiven);
    if (this.#lastTurn.size > REMEMBERED_TENANTS) {
      const oldest = this.#lastTurn.keys().next().value;
      if (oldest !== undefined) this.#lastTurn.delete(oldest);
    }
  }
}

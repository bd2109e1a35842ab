import type { Orm } from './orm.ts';
import type { EntityManager } from './sql.ts';

/** What one request's stand-in holds: the ORM, and its fork once something used it. */
interface LazyForkState {
  orm: Orm;
  fork: EntityManager | undefined;
}

const forkOf = (state: LazyForkState): EntityManager => {
  state.fork ??= state.orm.em.fork();
  return state.fork;
};

// One handler for every request: a request's stand-in is its state object and the proxy, nothing more.
const FORK_ON_FIRST_USE: ProxyHandler<LazyForkState> = {
  get(state, property) {
    const fork = forkOf(state);
    const value = Reflect.get(fork, property);
    return typeof value === 'function' ? value.bind(fork) : value;
  },
  has: (state, property) => Reflect.has(forkOf(state), property),
};

/**
 * A request's entity manager, forked on first use: a cached verification never touches the
 * database and need not pay for a fork; every other request forks as before
 * (docs/decisions/0005-lazy-fork.md).
 */
export function lazyFork(orm: Orm): EntityManager {
  return new Proxy<LazyForkState>({ orm, fork: undefined }, FORK_ON_FIRST_USE) as unknown as EntityManager;
}

import type { Orm } from './orm.ts';
import type { EntityManager } from './sql.ts';

/**
 * A request's entity manager, forked on first use. Forking costs more than a whole cached
 * verification, which never touches the database; every other request forks as before.
 */
export function lazyFork(orm: Orm): EntityManager {
  let fork: EntityManager | undefined;
  const real = () => {
    fork ??= orm.em.fork();
    return fork;
  };
  return new Proxy({} as EntityManager, {
    get(_target, property) {
      const value = Reflect.get(real(), property);
      return typeof value === 'function' ? value.bind(real()) : value;
    },
    has: (_target, property) => Reflect.has(real(), property),
  });
}

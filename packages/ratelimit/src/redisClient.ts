import { Cluster, Redis } from 'ioredis';

/** Bounds how long a request waits on Redis before the fallback answers (see withinCommandTimeout). */
const COMMAND_TIMEOUT_MS = 200;
/**
 * ioredis's own timeout, only so that a command to a peer that went silent is not kept for ever:
 * callers stop waiting at COMMAND_TIMEOUT_MS already.
 */
const ABANDONED_COMMAND_MS = 2000;

/**
 * The command's answer, or an error once COMMAND_TIMEOUT_MS have passed without one.
 * An answer that arrived while this process was stalled (CPU starved, a long collection) still
 * counts: Node runs due timers before the I/O that arrived meanwhile, so the timeout gives that
 * I/O its turn (setImmediate runs after it) before it decides. ioredis's own timeout decided at
 * once, and a process stalled past 200 ms judged its checks without Redis though Redis had
 * answered (docs/scaling.md, Three nodes under faults).
 */
export function withinCommandTimeout<T>(command: Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (!answered) reject(new Error(`Redis did not answer within ${COMMAND_TIMEOUT_MS} ms`));
      });
    }, COMMAND_TIMEOUT_MS);
    command.then(
      (value) => {
        answered = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        answered = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** A Redis Cluster, by some of its nodes: the client learns the others, and which serves each slot, from them. */
export interface RedisCluster {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
}

/** Where the shared counters live: one Redis server (by its URL) or a Redis Cluster. */
export type RedisLocation =
  | { redisUrl: string; redisCluster?: never }
  | { redisCluster: RedisCluster; redisUrl?: never };

export type RedisClient = Redis | Cluster;

/** The Redis a caller configured, if any; a cluster and a URL at once is a mistake (configuration refuses it too). */
export function redisLocationOf(config: { redisUrl?: string; redisCluster?: RedisCluster }): RedisLocation | undefined {
  const { redisUrl, redisCluster } = config;
  if (redisUrl !== undefined && redisCluster !== undefined) {
    throw new TypeError('Give either a Redis URL or a Redis Cluster, not both');
  }
  if (redisCluster !== undefined) return { redisCluster };
  return redisUrl === undefined ? undefined : { redisUrl };
}

/**
 * A connection for limits: commands fail at once while Redis is away (no offline queue, one retry),
 * and callers wait for them at most COMMAND_TIMEOUT_MS (withinCommandTimeout), so that a request is
 * answered without Redis rather than kept waiting for it.
 * On a cluster every node's connection is made so, and each command goes to the master of its
 * key's slot (a call's keys share one slot: see docs/architecture.md, Redis Cluster).
 */
export function connectRedis(location: RedisLocation): RedisClient {
  const options = {
    commandTimeout: ABANDONED_COMMAND_MS,
    // Off: callers already send one call per hash tag and wave, which auto-pipelining would not join
    // (each goes out from its own tick); it only added a pipeline object per call.
    enableAutoPipelining: false,
    maxRetriesPerRequest: 1,
  };
  const client =
    location.redisCluster === undefined
      ? new Redis(location.redisUrl, { ...options, enableOfflineQueue: false })
      : new Cluster(location.redisCluster.nodes, {
          enableOfflineQueue: false,
          enableAutoPipelining: false,
          redisOptions: {
            ...options,
            username: location.redisCluster.username,
            password: location.redisCluster.password,
          },
        });
  // Without a listener ioredis prints connection errors itself; callers hear of them through their
  // commands' failures.
  client.on('error', () => {});
  return client;
}

/**
 * Resolves when Redis answers now. On a cluster every master must answer, as each serves a share
 * of the slots: one that is down fails every call whose hash tag it serves. The masters are taken
 * from the slot table: the client drops a master whose connection ended from its nodes, though the
 * master still owns its slots, and connects it again only once it refreshes the table.
 */
export async function pingRedis(client: RedisClient): Promise<void> {
  if (!(client instanceof Cluster)) {
    await withinCommandTimeout(client.ping());
    return;
  }
  if (client.status !== 'ready') throw new Error(`Redis Cluster connection is ${client.status}`);
  // By "host:port"; `filter` skips the slots the table has no entry for.
  const slotMasters = () => new Set(client.slots.filter((owners) => owners.length > 0).map(([master]) => master));
  const connectedMasters = () =>
    new Map(client.nodes('master').map((node) => [`${node.options.host}:${node.options.port}`, node]));
  let connected = connectedMasters();
  if ([...slotMasters()].some((master) => master === undefined || !connected.has(master))) {
    await new Promise<void>((resolve, reject) =>
      client.refreshSlotsCache((error) => (error ? reject(error) : resolve())),
    );
    connected = connectedMasters();
  }
  const masters = slotMasters();
  if (masters.size === 0) throw new Error('the Redis Cluster has no master serving slots');
  await Promise.all(
    [...masters].map(async (master) => {
      const node = master === undefined ? undefined : connected.get(master);
      if (node === undefined) throw new Error(`the Redis Cluster master ${master} is not connected`);
      await withinCommandTimeout(node.ping());
    }),
  );
}

export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.status === 'ready') {
    // A connection that has just broken may not say so yet: then there is nothing to quit.
    await client.quit().catch(() => client.disconnect());
  } else {
    client.disconnect();
  }
}

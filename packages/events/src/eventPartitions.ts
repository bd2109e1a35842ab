import { type EntityManager, type Orm, rows, sql } from '@keyplane/db';

/** The raw event tables, each partitioned by day on `time` (docs/architecture.md, Event tables). */
export const EVENT_TABLES = ['key_verifications', 'ratelimit_events'] as const;
export type EventTable = (typeof EVENT_TABLES)[number];

const DAY_MS = 86_400_000;

/**
 * How long partition changes wait for the locks they need before giving up until the next run:
 * a longer wait would hold up the event writes and analytics queries queued behind it.
 */
const PARTITION_LOCK_TIMEOUT = '1s';

/** A day's partition of an event table; `day` is its first instant (midnight UTC). */
export interface EventPartition {
  name: string;
  day: Date;
}

/** The start (midnight UTC) of the day of a time. */
function dayOf(time: Date): Date {
  return new Date(Math.floor(time.getTime() / DAY_MS) * DAY_MS);
}

/** The DEFAULT partition of an event table: rows of days that have no partition of their own. */
export function defaultPartition(table: EventTable): string {
  return `${table}_default`;
}

/**
 * Creates the missing day partitions of both event tables from the day of `from` to the day of
 * `to`, both included, moving rows of those days out of the default partition. Returns the
 * partitions it created.
 */
export async function createEventPartitions(orm: Orm, from: Date, to: Date): Promise<string[]> {
  const created: string[] = [];
  for (let day = dayOf(from); day <= to; day = new Date(day.getTime() + DAY_MS)) {
    const date = day.toISOString().slice(0, 10);
    for (const table of EVENT_TABLES) {
      // One transaction each, so a day that has to wait for its locks keeps none of the others waiting.
      // Raw: partition DDL, in a database function (docs/decisions/0012-per-day-event-partitions.md).
      const [result] = await withPartitionLocks(orm, (tx) =>
        rows(tx, sql<{ created: boolean }>`select keyplane_create_event_partition(${table}, ${date}::date) as created`),
      );
      if (result?.created) created.push(`${table}_p${date.replaceAll('-', '')}`);
    }
  }
  return created;
}

/** The day partitions of an event table, oldest first (the default partition is not one of them). */
export async function eventPartitions(em: EntityManager, table: EventTable): Promise<EventPartition[]> {
  // Raw: the catalog's list of partitions, which no entity defines.
  const children = await rows(
    em,
    sql<{ name: string }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
                          where i.inhparent = ${table}::regclass`,
  );
  const dayPartition = new RegExp(`^${table}_p(\\d{4})(\\d{2})(\\d{2})$`);
  return children
    .flatMap(({ name }) => {
      const match = dayPartition.exec(name);
      return match ? [{ name, day: new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00Z`) }] : [];
    })
    .sort((a, b) => a.day.getTime() - b.day.getTime());
}

/**
 * Drops the day partitions of an event table whose whole day is before the cutoff; the day that
 * straddles it stays until its end has passed too. Returns their names.
 */
export async function dropExpiredEventPartitions(orm: Orm, table: EventTable, before: Date): Promise<string[]> {
  const dropped: string[] = [];
  for (const partition of await eventPartitions(orm.em.fork(), table)) {
    if (partition.day.getTime() + DAY_MS > before.getTime()) break;
    // Raw: partition DDL (docs/decisions/0012-per-day-event-partitions.md).
    await withPartitionLocks(orm, (tx) => rows(tx, sql`drop table if exists ${sql.table(partition.name)}`));
    dropped.push(partition.name);
  }
  return dropped;
}

function withPartitionLocks<T>(orm: Orm, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  return orm.em.fork().transactional(async (tx) => {
    // Raw: a setting for this transaction only.
    await rows(tx, sql`select set_config('lock_timeout', ${PARTITION_LOCK_TIMEOUT}, true)`);
    return work(tx);
  });
}

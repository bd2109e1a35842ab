import { type EntityManager, loadServerSecret, scalarArrayLiteral, sql, typed, unnestAs } from '@keyplane/db';

/** A run of consecutive spool positions, both ends included. */
export type PositionRun = readonly [first: number, last: number];

/**
 * The runs of consecutive positions among ascending ones; events that are not in the spool
 * (negative positions) have nothing to mark.
 */
export function positionRuns(positions: readonly number[]): PositionRun[] {
  const runs: [number, number][] = [];
  for (const position of positions) {
    if (position < 0) continue;
    const last = runs.at(-1);
    if (last && position === last[1] + 1) last[1] = position;
    else runs.push([position, position]);
  }
  return runs;
}

/** Marks these spool positions of `owner` as written: call it in the transaction that writes their events. */
export async function markWritten(tx: EntityManager, owner: string, positions: readonly number[]): Promise<void> {
  const runs = positionRuns(positions);
  if (runs.length === 0) return;
  // One set-based statement, however many runs a batch of events marks.
  await typed(tx)
    .insertInto('event_spool_marks')
    .columns(['owner', 'first_position', 'last_position', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom(
          unnestAs('t', {
            first: ['int8', scalarArrayLiteral(runs.map(([first]) => first))],
            last: ['int8', scalarArrayLiteral(runs.map(([, last]) => last))],
          }),
        )
        .select([eb.val(owner).as('owner'), 't.first', 't.last', sql<Date>`now()`.as('created_at')]),
    )
    .execute();
}

/** The marked runs of `owner` that overlap positions `from` to `to`, in order. */
export async function markedRuns(em: EntityManager, owner: string, from: number, to: number): Promise<PositionRun[]> {
  const found = await typed(em)
    .selectFrom('event_spool_marks')
    .select(['first_position', 'last_position'])
    .where('owner', '=', owner)
    .where('first_position', '<=', to)
    .where('last_position', '>=', from)
    .orderBy('first_position')
    .execute();
  return found.map((mark) => [mark.first_position, mark.last_position]);
}

/** Forgets the marks of `owner` below `position` (all of them without it): no spool file holds those any more. */
export async function forgetMarks(
  em: EntityManager,
  owner: string,
  position = Number.POSITIVE_INFINITY,
): Promise<void> {
  let marks = typed(em).deleteFrom('event_spool_marks').where('owner', '=', owner);
  if (Number.isFinite(position)) marks = marks.where('last_position', '<', position);
  await marks.execute();
}

/**
 * Forgets marks made before `before`. Their owners normally forget their own marks as their spool
 * files go; this sweeps those a crash left behind.
 */
export async function forgetMarksBefore(em: EntityManager, before: Date): Promise<void> {
  await typed(em).deleteFrom('event_spool_marks').where('created_at', '<', before).execute();
}

/**
 * A name for this database, the same on every node: spool files of one database are never replayed
 * into another that shares the directory, and deployments sharing one Redis keep their quotas apart.
 */
export async function databaseIdOf(em: EntityManager): Promise<string> {
  return Buffer.from(await loadServerSecret(em, 'event_spool_database_id', 12)).toString('base64url');
}

import { CopyRows } from './copyRows.ts';
import type { EventTransaction } from './eventTransaction.ts';

/** A batch of events as its table receives it: the rows COPY streams in, and their totals for the rollups. */
export interface EventRows<TTotals> {
  readonly rows: CopyRows;
  readonly totals: TTotals;
}

/**
 * One kind of analytics event and the table it is written to. Each event is made its COPY row once,
 * when it is recorded: the spool keeps that row, and the batch keeps and sends its bytes. The batch's totals
 * grow as its events arrive. Writing a batch therefore builds nothing per event
 * (docs/decisions/0014-events-spooled-then-copied-in-batches.md).
 */
export interface EventTable<TEvent, TTotals> {
  /** The event as a row of COPY's text format, without its newline. */
  row(event: TEvent): string;
  /** The event a row holds; undefined when the text is no such row (a damaged spool line). */
  parse(row: string): TEvent | undefined;
  /** The totals of a batch of no events. */
  noTotals(): TTotals;
  /**
   * Counts an event into its batch's totals, per group of the rollups: summed here rather than by
   * PostgreSQL, the rollups read a row per group instead of one per event.
   */
  count(totals: TTotals, event: TEvent): void;
  /** Writes a batch, its rows and then its totals, in the caller's transaction. A failed batch leaves nothing behind. */
  write(tx: EventTransaction, batch: EventRows<TTotals>): Promise<void>;
}

/** The batch of these events, for events not recorded as they came (read back from a spool, or seeded by a test). */
export function rowsOf<TEvent, TTotals>(
  table: EventTable<TEvent, TTotals>,
  events: readonly TEvent[],
): EventRows<TTotals> {
  const totals = table.noTotals();
  for (const event of events) table.count(totals, event);
  return { rows: CopyRows.of(events.map((event) => table.row(event))), totals };
}

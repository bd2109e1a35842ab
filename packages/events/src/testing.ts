import { type EventTable, rowsOf } from './eventTable.ts';
import type { EventTransaction } from './eventTransaction.ts';
import type { VerificationEvent } from './verificationEvents.ts';

/** A VALID verification event of a test, with the fields it does not care about filled in. */
export function testVerificationEvent(
  fields: Pick<VerificationEvent, 'requestId' | 'workspaceId' | 'apiId' | 'keyId'> & Partial<VerificationEvent>,
): VerificationEvent {
  return {
    time: Date.now(),
    identityId: null,
    externalId: null,
    outcome: 'VALID',
    tags: [],
    spentCredits: 0,
    latencyMs: 1,
    ...fields,
  };
}

/** Writes events to their table in one batch, as a recorder's flush would: analytics seeded by a test. */
export function writeEvents<TEvent, TTotals>(
  tx: EventTransaction,
  table: EventTable<TEvent, TTotals>,
  events: readonly TEvent[],
): Promise<void> {
  return table.write(tx, rowsOf(table, events));
}

import type { Orm } from '@keyplane/db';
import {
  createEventRecorder,
  type EventRecorder,
  type EventStream,
  type RecorderOptions,
  writeWithMarks,
} from './eventRecorder.ts';
import type { EventSpool } from './eventSpool.ts';
import { type RatelimitEvent, type RatelimitTotals, ratelimitTable } from './ratelimitEvents.ts';
import { type VerificationEvent, type VerificationTotals, verificationTable } from './verificationEvents.ts';

export const verificationStream: EventStream<VerificationEvent, VerificationTotals> = {
  tag: 'V',
  table: verificationTable,
};

export const ratelimitStream: EventStream<RatelimitEvent, RatelimitTotals> = {
  tag: 'R',
  table: ratelimitTable,
};

export type VerificationRecorder = EventRecorder<VerificationEvent>;

export type RatelimitRecorder = EventRecorder<RatelimitEvent>;

/** Every verification, spooled before its answer and written for analytics in batches off the request path. */
export function createVerificationRecorder(
  orm: Orm,
  spool: EventSpool,
  options: RecorderOptions = {},
): VerificationRecorder {
  return createEventRecorder(spool, verificationStream, writeWithMarks(orm, verificationTable, spool.owner), options);
}

/** Every ratelimit decision, spooled before its answer and written for analytics in batches off the request path. */
export function createRatelimitRecorder(orm: Orm, spool: EventSpool, options: RecorderOptions = {}): RatelimitRecorder {
  return createEventRecorder(spool, ratelimitStream, writeWithMarks(orm, ratelimitTable, spool.owner), options);
}

import {
  type Orm,
  type RatelimitEvent,
  type VerificationEvent,
  writeRatelimitEvents,
  writeVerificationEvents,
} from '@keyplane/db';
import {
  createEventRecorder,
  type EventRecorder,
  type EventStream,
  type RecorderOptions,
  writeWithMarks,
} from './eventRecorder.ts';
import type { EventSpool } from './eventSpool.ts';

export const verificationStream: EventStream<VerificationEvent> = { tag: 'v', write: writeVerificationEvents };

export const ratelimitStream: EventStream<RatelimitEvent> = { tag: 'r', write: writeRatelimitEvents };

export type VerificationRecorder = EventRecorder<VerificationEvent>;

export type RatelimitRecorder = EventRecorder<RatelimitEvent>;

/** Every verification, spooled before its answer and written for analytics in batches off the request path. */
export function createVerificationRecorder(
  orm: Orm,
  spool: EventSpool,
  options: RecorderOptions = {},
): VerificationRecorder {
  return createEventRecorder(
    spool,
    verificationStream.tag,
    writeWithMarks(orm, verificationStream, spool.owner),
    options,
  );
}

/** Every ratelimit decision, spooled before its answer and written for analytics in batches off the request path. */
export function createRatelimitRecorder(orm: Orm, spool: EventSpool, options: RecorderOptions = {}): RatelimitRecorder {
  return createEventRecorder(spool, ratelimitStream.tag, writeWithMarks(orm, ratelimitStream, spool.owner), options);
}

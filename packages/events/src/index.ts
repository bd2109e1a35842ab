export { CopyRows } from './copyRows.ts';
export { createEventPartitions } from './eventPartitions.ts';
export { type EventRecorder, type EventStream, type RecorderOptions, writeWithMarks } from './eventRecorder.ts';
export { type EventSpool, openEventSpool, type SpoolOptions } from './eventSpool.ts';
export { type EventRows, type EventTable, rowsOf } from './eventTable.ts';
export { type EventTransaction, eventTransaction } from './eventTransaction.ts';
export {
  RATELIMIT_DECISIONS,
  type RatelimitDecision,
  type RatelimitEvent,
  type RatelimitTotals,
  ratelimitTable,
} from './ratelimitEvents.ts';
export {
  createRatelimitRecorder,
  createVerificationRecorder,
  type RatelimitRecorder,
  ratelimitStream,
  type VerificationRecorder,
  verificationStream,
} from './recorders.ts';
export { deleteExpiredAnalytics, type RetentionResult } from './retention.ts';
export { type RetentionSchedule, scheduleAnalyticsRetention } from './retentionSchedule.ts';
export { GRANULARITIES, type Granularity, rollupTable } from './rollups.ts';
export {
  databaseIdOf,
  forgetMarks,
  forgetMarksBefore,
  markedRuns,
  markWritten,
  type PositionRun,
  positionRuns,
} from './spoolMarks.ts';
export { type SpoolReplay, type SpoolReplayOptions, startSpoolReplay } from './spoolReplay.ts';
export {
  type KeyVerificationRecord,
  listKeyVerifications,
  type VerificationEvent,
  type VerificationTotals,
  verificationTable,
} from './verificationEvents.ts';

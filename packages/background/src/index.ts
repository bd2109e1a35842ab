export { type RetentionSchedule, scheduleAnalyticsRetention } from './analyticsRetention.ts';
export { type CreditSpend, type CreditSpender, createCreditSpender } from './creditSpender.ts';
export { type EventRecorder, type EventStream, type RecorderOptions, writeWithMarks } from './eventRecorder.ts';
export { type EventSpool, openEventSpool, type SpoolOptions } from './eventSpool.ts';
export { type CatchUp, type InvalidationListener, listenForInvalidations } from './invalidationListener.ts';
export {
  createRatelimitRecorder,
  createVerificationRecorder,
  type RatelimitRecorder,
  ratelimitStream,
  type VerificationRecorder,
  verificationStream,
} from './recorders.ts';
export { createRootKeyUsageTracker, type RootKeyUsageTracker } from './rootKeyUsage.ts';
export { type SpoolReplay, type SpoolReplayOptions, startSpoolReplay } from './spoolReplay.ts';
export {
  startWebhookDelivery,
  WEBHOOK_WORKERS,
  WEBHOOK_WORKSPACE_IN_FLIGHT,
  type WebhookDelivery,
  type WebhookDeliveryOptions,
} from './webhookDelivery.ts';
export {
  type ResolveHost,
  type SendResult,
  sendWebhook,
  TARGET_NOT_ALLOWED,
  WEBHOOK_BODY_READ_MS,
  WEBHOOK_TIMEOUT_MS,
} from './webhookSend.ts';

// What a webhook endpoint may ask for, and what it gets where it does not say: no Node API, so the
// dashboard offers exactly what the server accepts.

/** Every event type an endpoint may ask for (docs/webhooks.md says when each is sent); `*` asks for all. */
export const WEBHOOK_EVENT_TYPES = [
  'key.created',
  'key.updated',
  'key.disabled',
  'key.deleted',
  'key.rerolled',
  'key.expiring',
  'key.expired',
  'key.credits.low',
  'key.credits.exhausted',
  'key.credits.refilled',
  'ratelimit.override.changed',
  'rootkey.created',
  'rootkey.revoked',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What an endpoint sends `key.expiring` ahead of an expiry when it does not say. */
export const DEFAULT_EXPIRING_NOTICE_MS = 7 * 24 * 3_600_000;
/** An endpoint's `key.credits.low` threshold when it names none. */
export const DEFAULT_CREDITS_LOW_THRESHOLD = 10;

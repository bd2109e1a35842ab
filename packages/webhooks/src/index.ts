export { ATTEMPT_NOT_RECORDED } from './deliveryQueue.ts';
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

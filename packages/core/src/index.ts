export * from './analyticsConcurrency.ts';
export * from './analyticsQuota.ts';
export * from './apiDeletion.ts';
export { base58Encode } from './base58.ts';
export { FreshnessCache, type MaybePromise } from './cache.ts';
export * from './errors.ts';
export * from './fairTurns.ts';
export { type IdKind, newId } from './ids.ts';
export {
  createKey,
  type KeyApiSettings,
  type KeyAttributes,
  type KeyCreationRequest,
  type KeyCreationStore,
  type KeyCredits,
  type KeyRatelimit,
  type NewKey,
} from './keyCreation.ts';
export {
  type CreditsUpdate,
  type CreditsUpdateRequest,
  type CreditsWrite,
  type KeyCreditsStore,
  updateKeyCredits,
} from './keyCredits.ts';
export {
  CREDITS_UPDATE_DETAILS,
  type CreditsState,
  effectiveRemaining,
  type KeyReplacement,
  type KeyRerollRequest,
  type KeyRerollStore,
  type KeyToReroll,
  MAX_CREDITS,
  rerolledKeyExpiry,
  rerollKey,
} from './keyLifecycle.ts';
export {
  completeKeyMigration,
  type ImportedKey,
  type KeyImportRequest,
  type KeyMigrationResult,
  type KeyMigrationStore,
  type KeyRehashRequest,
  type MigratedKey,
  migrateKeys,
  PREFIXED_API_KEY_ALGORITHM,
  prefixedApiKeyParts,
  storedKeyHash,
} from './keyMigration.ts';
export { type KeyCreationSetting, keyCreationPrecondition } from './keyPolicy.ts';
export * from './keyPrefix.ts';
export * from './keyStatus.ts';
export { DEFAULT_KEY_BYTES, type GeneratedKey, generateKey, hashKey } from './keys.ts';
export { type CreditsChange, type CreditsPatch, planCreditsChange } from './keyUpdates.ts';
export * from './limits.ts';
export * from './namespaceRatelimits.ts';
export * from './permissions.ts';
export * from './portals.ts';
export * from './rootKeyExpiry.ts';
export * from './rootKeys.ts';
export * from './sessions.ts';
export { Tally } from './tally.ts';
export * from './team/accounts.ts';
export * from './team/members.ts';
export * from './team/passkeys.ts';
export * from './team/passwords.ts';
export * from './team/roles.ts';
export * from './team/sso.ts';
export * from './team/tokens.ts';
export * from './vault.ts';
export * from './verification/permissionQuery.ts';
export * from './verification/refill.ts';
export * from './verification/verify.ts';
export {
  DEFAULT_CREDITS_LOW_THRESHOLD,
  DEFAULT_EXPIRING_NOTICE_MS,
  DEFAULT_WEBHOOK_ENDPOINTS_PER_WORKSPACE,
  isLocalhostName,
  isPrivateAddress,
  newWebhookSecret,
  WEBHOOK_DISABLE_AFTER_MS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_RESPONSE_LOG_BYTES,
  WEBHOOK_RETRY_DELAYS_MS,
  type WebhookEventType,
  webhookPayloadReader,
  webhookResponseExcerpt,
  webhookRetryDelay,
  webhookUrlProblem,
} from './webhooks.ts';
export * from './workspaceRateLimit.ts';
export * from './workspaces.ts';

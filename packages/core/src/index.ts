export * from './analyticsQuota.ts';
export { base58Encode } from './base58.ts';
export { FreshnessCache } from './cache.ts';
export * from './errors.ts';
export { type IdKind, newId } from './ids.ts';
export {
  CREDITS_UPDATE_DETAILS,
  type CreditsState,
  effectiveRemaining,
  MAX_CREDITS,
  rerolledKeyExpiry,
  rerolledKeyPrefix,
} from './keyLifecycle.ts';
export { PREFIXED_API_KEY_ALGORITHM, prefixedApiKeyParts, storedKeyHash } from './keyMigration.ts';
export { type KeyCreationSetting, keyCreationPrecondition } from './keyPolicy.ts';
export { DEFAULT_KEY_BYTES, type GeneratedKey, generateKey, hashesEqual, hashKey } from './keys.ts';
export { type CreditsChange, type CreditsPatch, planCreditsChange } from './keyUpdates.ts';
export * from './namespaceRatelimits.ts';
export * from './permissions.ts';
export * from './sessions.ts';
export * from './vault.ts';
export * from './verification/permissionQuery.ts';
export * from './verification/refill.ts';
export * from './verification/verify.ts';
export * from './workspaceRateLimit.ts';

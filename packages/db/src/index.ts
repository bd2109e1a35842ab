export { ANALYTICS_LIMITS, type AnalyticsDataset, type AnalyticsQuery, queryAnalytics } from './analytics.ts';
export {
  deleteExpiredAnalytics,
  type RetentionResult,
  type RetentionSchedule,
  scheduleAnalyticsRetention,
} from './analyticsRetention.ts';
export {
  type ApiChanges,
  type ApiDeletion,
  type ApiRecord,
  createApi,
  deleteApi,
  findApi,
  listApis,
  updateApi,
} from './apis.ts';
export { type AuditEntry, type AuditEventRecord, listAuditEvents, recordAuditEvent } from './auditEvents.ts';
export { type CreditSpend, type CreditSpender, createCreditSpender } from './creditSpender.ts';
export {
  createDashboardSession,
  type DashboardSessionRecord,
  deleteDashboardSession,
  findDashboardSession,
  loadServerSecret,
} from './dashboardSessions.ts';
export { type EmbeddedDatabase, findRunningEmbedded, startEmbeddedPostgres } from './embedded.ts';
export * from './entities/index.ts';
export type { EventRecorder, RecorderOptions } from './eventRecorder.ts';
export {
  createIdentity,
  deleteIdentity,
  findIdentity,
  type IdentityChanges,
  type IdentityRecord,
  listIdentities,
  type NewIdentity,
  updateIdentity,
} from './identities.ts';
export {
  type CatchUp,
  type Invalidation,
  type InvalidationListener,
  listenForInvalidations,
  notifyInvalidation,
} from './invalidation.ts';
export { creditsStateOf, findKeyDetails, type KeyDetails, type KeyPageQuery, listKeyDetails } from './keyDetails.ts';
export { type CreditsUpdate, deleteKey, type RerollParams, rerollKey, updateKeyCredits } from './keyLifecycle.ts';
export {
  completeKeyMigration,
  createKeyMigration,
  type KeyMigrationResult,
  type MigratedKeyParams,
  migrateKeys,
} from './keyMigrations.ts';
export {
  type BeforeCreatingPermissions,
  changeKeyPermissions,
  changeKeyRoles,
  findKeyGrants,
  type LinkOperation,
  type PermissionRecord,
  type RoleRecord,
} from './keyRbac.ts';
export { findKeyRecord, type KeyRecord } from './keyRecords.ts';
export { type CreateKeyParams, createKey, type KeyCredits, type KeyRatelimit, type KeyScope } from './keys.ts';
export { type KeyChanges, updateKey } from './keyUpdates.ts';
export { lazyFork } from './lazyFork.ts';
export { containsAny, type PageQuery, startingAt } from './listing.ts';
export { createOrm, migrate, type Orm, type OrmOptions, ormConfig } from './orm.ts';
export {
  createPermission,
  deletePermission,
  findPermission,
  listPermissions,
  type NewPermission,
} from './permissions.ts';
export { createRatelimitRecorder, type RatelimitEvent, type RatelimitRecorder } from './ratelimitEvents.ts';
export {
  createRatelimitNamespaces,
  deleteRatelimitNamespace,
  findLiveRatelimitNamespace,
  findRatelimitTargets,
  listRatelimitNamespaces,
  type RatelimitNamespaceListing,
  type RatelimitNamespaceRecord,
  type RatelimitTarget,
  type RatelimitTargetQuery,
} from './ratelimitNamespaces.ts';
export {
  deleteRatelimitOverride,
  listRatelimitOverrides,
  type NewRatelimitOverride,
  setRatelimitOverride,
} from './ratelimitOverrides.ts';
export {
  createRole,
  deleteRole,
  findRole,
  listRoles,
  type NewRole,
  setRolePermissions,
} from './roles.ts';
export {
  createRootKey,
  createRootKeyUsageTracker,
  findRootKeyByHash,
  listRootKeys,
  type RootKeyChange,
  type RootKeyListing,
  type RootKeyRecord,
  type RootKeyUsageTracker,
  revokeRootKey,
  setRootKeyExpiry,
} from './rootKeys.ts';
export { type EntityManager, rows, sql } from './sql.ts';
export { enableVault, loadDataKey } from './vault.ts';
export { findKeyForVerification } from './verification.ts';
export {
  createVerificationRecorder,
  type VerificationEvent,
  type VerificationRecorder,
} from './verificationEvents.ts';
export {
  type Bootstrapped,
  bootstrapIfEmpty,
  bootstrapWorkspace,
  setWorkspaceApiRateLimit,
  workspaceExists,
} from './workspaces.ts';

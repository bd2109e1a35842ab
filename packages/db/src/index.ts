export {
  ANALYTICS_LIMITS,
  type AnalyticsDatabase,
  type AnalyticsDataset,
  type AnalyticsQuery,
  createAnalyticsDatabase,
  DEFAULT_ANALYTICS_CONNECTIONS,
} from './analytics.ts';
export { deleteExpiredAnalytics, type RetentionResult } from './analyticsRetention.ts';
export {
  type ApiChanges,
  type ApiRecord,
  apiDeletionStore,
  createApi,
  findApi,
  listApis,
  updateApi,
} from './apis.ts';
export { scalarArrayLiteral, textArrayLiteral } from './arrayLiterals.ts';
export {
  type AuditDetails,
  type AuditEntry,
  type AuditEventFilters,
  type AuditEventQuery,
  type AuditEventRecord,
  type AuditFieldChange,
  countAuditEvents,
  listAuditEventNames,
  listAuditEvents,
  recordAuditEvent,
} from './auditEvents.ts';
export { CopyRows } from './copyRows.ts';
export {
  createDashboardSession,
  type DashboardSessionRecord,
  deleteDashboardSession,
  findDashboardSession,
  loadServerSecret,
} from './dashboardSessions.ts';
export * from './entities/index.ts';
export { RowExists, RowNotFound } from './errors.ts';
export { createEventPartitions } from './eventPartitions.ts';
export { type EventRows, type EventTable, rowsOf } from './eventTable.ts';
export { type EventTransaction, eventTransaction } from './eventTransaction.ts';
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
  type ChangeLog,
  createChangeLog,
  INVALIDATION_CHANNEL,
  INVALIDATION_LISTENER_NAME,
  type Invalidation,
} from './invalidation.ts';
export { creditsStateOf, findKeyDetails, type KeyDetails, type KeyPageQuery, listKeyDetails } from './keyDetails.ts';
export { deleteKey, keyCreditsStore, keyRerollStore } from './keyLifecycle.ts';
export { createKeyMigration, keyMigrationStore } from './keyMigrations.ts';
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
export { keyCreationStore } from './keys.ts';
export {
  KEY_TABLE_FILTERS,
  KEY_TABLE_SORTS,
  type KeyTableFilter,
  type KeyTablePage,
  type KeyTableQuery,
  type KeyTableSort,
  listKeyTablePage,
} from './keyTable.ts';
export { type KeyChanges, updateKey } from './keyUpdates.ts';
export { lazyFork } from './lazyFork.ts';
export { containsAny, type PageQuery, startingAt } from './listing.ts';
export { createOrm, migrate, type Orm, type OrmOptions, ormConfig, pendingMigrations } from './orm.ts';
export {
  createPermission,
  deletePermission,
  findPermission,
  listPermissions,
  type NewPermission,
} from './permissions.ts';
export { ormPoolUsage, type PoolUsage, poolUsageOf } from './poolUsage.ts';
export {
  RATELIMIT_DECISIONS,
  type RatelimitDecision,
  type RatelimitEvent,
  type RatelimitTotals,
  ratelimitTable,
} from './ratelimitEvents.ts';
export {
  createRatelimitNamespaces,
  deleteRatelimitNamespace,
  findExactOverride,
  findLiveRatelimitNamespace,
  findRatelimitNamespace,
  listRatelimitNamespaces,
  type RatelimitNamespaceListing,
  type RatelimitNamespaceRecord,
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
  findRootKeyByHash,
  listRootKeys,
  type RootKeyListing,
  type RootKeyRecord,
  recordRootKeyUses,
  rootKeyChangeStore,
  rootKeyStore,
} from './rootKeys.ts';
export {
  databaseIdOf,
  forgetMarks,
  forgetMarksBefore,
  markedRuns,
  markWritten,
  type PositionRun,
  positionRuns,
} from './spoolMarks.ts';
export { databaseErrorCode, type EntityManager, refusedData, rows, sql, unixMs } from './sql.ts';
export { storeDataKey, vaultStore } from './vault.ts';
export { findKeyForVerification } from './verification.ts';
export {
  type KeyVerificationRecord,
  listKeyVerifications,
  type VerificationEvent,
  type VerificationTotals,
  verificationTable,
} from './verificationEvents.ts';
export {
  type AttemptOutcome,
  type ClaimedDelivery,
  claimDueDeliveries,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  enqueueDueExpiryEvents,
  enqueueTestEvent,
  enqueueWebhookEvent,
  findWebhookDelivery,
  findWebhookEndpoint,
  hasDueDeliveries,
  listWebhookDeliveries,
  listWebhookEndpoints,
  recordDeliveryAttempt,
  redeliverWebhook,
  setWebhookSecret,
  updateWebhookEndpoint,
  type WebhookAttemptRecord,
  type WebhookDeliveryRecord,
  type WebhookEndpointRecord,
  type WebhookEndpointSettings,
  type WebhookEventEntry,
} from './webhooks.ts';
export {
  deleteWorkspace,
  findWorkspace,
  setWorkspaceApiRateLimit,
  type WorkspaceRecord,
  workspaceExists,
  workspaceStore,
} from './workspaces.ts';

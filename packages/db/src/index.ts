export {
  type ChangeLog,
  createChangeLog,
  INVALIDATION_CHANNEL,
  INVALIDATION_LISTENER_NAME,
  type Invalidation,
} from '@keyplane/caches';
export {
  findFirstWorkspace,
  findRootKeySignIn,
  listSignInMemberships,
  revokeUserSessionById,
  revokeUserSessionsExcept,
  setRootKeySignIn,
  setUserName,
  workspaceHasOwner,
} from './accounts.ts';
export {
  type ApiChanges,
  type ApiRecord,
  apiDeletionStore,
  createApi,
  findApi,
  listApis,
  updateApi,
} from './apis.ts';
export { parseTextArrayLiteral, scalarArrayLiteral, textArrayLiteral } from './arrayLiterals.ts';
export {
  AUDITED_SERVICES,
  type AuditDetails,
  type AuditEntry,
  type AuditEventFilters,
  type AuditEventQuery,
  type AuditEventRecord,
  type AuditFieldChange,
  type AuditVisibility,
  countAuditEvents,
  listAuditEventNames,
  listAuditEventPeople,
  listAuditEvents,
  recordAuditEvent,
} from './auditEvents.ts';
export { type CreditSpend, type CreditSpender, createCreditSpender } from './creditSpender.ts';
export {
  createDashboardSession,
  type DashboardSessionRecord,
  deleteDashboardSession,
  findDashboardSession,
  loadServerSecret,
} from './dashboardSessions.ts';
export * from './entities/index.ts';
export { LimitReached, RowExists, RowNotFound } from './errors.ts';
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
  acceptInvitation,
  createInvitation,
  findPendingInvitation,
  type InvitationRecord,
  listInvitations,
  revokeInvitation,
} from './invitations.ts';
export { creditsStateOf, findKeyDetails, type KeyDetails, type KeyPageQuery, listKeyDetails } from './keyDetails.ts';
export { deleteKey, keyCreditsStore, keyRerollStore } from './keyLifecycle.ts';
export { createKeyMigration, keyMigrationStore } from './keyMigrations.ts';
export {
  changeKeyPermissions,
  changeKeyRoles,
  findKeyGrants,
  type LinkOperation,
  type PermissionCreation,
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
  type KeyTableRow,
  type KeyTableSort,
  listKeyTablePage,
} from './keyTable.ts';
export { type KeyChanges, updateKey } from './keyUpdates.ts';
export { lazyFork } from './lazyFork.ts';
export { type ChosenPage, containsAny, type PageQuery, startingAt } from './listing.ts';
export {
  findInvitation,
  type InvitationListing,
  listInvitationPage,
  listMemberPage,
  lockInvitationsTo,
  type MemberListing,
  revokePendingInvitationsTo,
} from './memberManagement.ts';
export {
  createMembership,
  createUser,
  findMembership,
  findUser,
  findUserByEmail,
  listMembers,
  listUserWorkspaces,
  type MemberRecord,
  membershipChangeStore,
  recordSignIn,
  removeMembership,
  setUserPassword,
  type UserRecord,
  updateMemberRole,
} from './members.ts';
export { createOrm, migrate, type Orm, type OrmOptions, ormConfig, pendingMigrations } from './orm.ts';
export {
  consumePasskeyChallenge,
  createPasskeyChallenge,
  type PasskeyChallengePurpose,
} from './passkeyChallenges.ts';
export {
  addPasskey,
  findPasskeyByCredentialId,
  listPasskeys,
  type PasskeyRecord,
  recordPasskeyUse,
  removePasskey,
  renamePasskey,
} from './passkeys.ts';
export { consumePasswordReset, createPasswordReset } from './passwordResets.ts';
export {
  createPermission,
  deletePermission,
  findPermission,
  listPermissions,
  type NewPermission,
} from './permissions.ts';
export { ormPoolUsage, type PoolUsage, poolUsageOf } from './poolUsage.ts';
export {
  countCustomerKeys,
  createPortal,
  createPortalSession,
  deletePortal,
  exchangePortalCode,
  findPortal,
  findPortalSessionByToken,
  listCustomerVerifications,
  listPortalSessions,
  listPortals,
  lockPortalCustomer,
  type NewPortal,
  type PortalChanges,
  type PortalKeyPolicy,
  type PortalRecord,
  type PortalSessionPrincipal,
  type PortalSessionRecord,
  revokePortalSessions,
  updatePortal,
} from './portals.ts';
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
  listRootKeyPage,
  listRootKeys,
  type RootKeyListing,
  type RootKeyRecord,
  recordRootKeyUses,
  rootKeyChangeStore,
  rootKeyStore,
} from './rootKeys.ts';
export { createRootKeyUsageTracker, type RootKeyUsageTracker } from './rootKeyUsage.ts';
export { consumeSetupLink, createSetupLink } from './setupLinks.ts';
export {
  databaseErrorCode,
  type EntityManager,
  epochMs,
  refusedData,
  rows,
  sql,
  typed,
  unixMs,
  unnestAs,
} from './sql.ts';
export {
  createUserSession,
  findUserSession,
  listUserSessions,
  revokeUserSession,
  revokeUserSessions,
  touchUserSession,
  type UserSessionRecord,
} from './userSessions.ts';
export { storeDataKey, vaultStore } from './vault.ts';
export { findKeyForVerification } from './verification.ts';
export {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  enqueueTestEvent,
  enqueueWebhookEvent,
  findWebhookDelivery,
  findWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
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
  findOldestWorkspace,
  findWorkspace,
  setWorkspaceApiRateLimit,
  type WorkspaceRecord,
  workspaceExists,
  workspaceStore,
} from './workspaces.ts';

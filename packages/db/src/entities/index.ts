import {
  KeyVerificationPerDay,
  KeyVerificationPerHour,
  KeyVerificationPerMinute,
  KeyVerificationPerMonth,
  RatelimitPerDay,
  RatelimitPerHour,
  RatelimitPerMinute,
  RatelimitPerMonth,
} from './AnalyticsRollups.ts';
import { Api } from './Api.ts';
import { AuditEvent } from './AuditEvent.ts';
import { DashboardSession } from './DashboardSession.ts';
import { EventSpoolMark } from './EventSpoolMark.ts';
import { Identity } from './Identity.ts';
import { Key, MAX_KEY_HASH_LENGTH } from './Key.ts';
import { KeyMigration } from './KeyMigration.ts';
import { KeyPermission } from './KeyPermission.ts';
import { KeyRole } from './KeyRole.ts';
import { KeyVerification } from './KeyVerification.ts';
import { Permission } from './Permission.ts';
import { Portal, PortalSession } from './Portal.ts';
import { Ratelimit } from './Ratelimit.ts';
import { RatelimitEvent } from './RatelimitEvent.ts';

export type { RatelimitDecision } from './RatelimitEvent.ts';

import { RatelimitNamespace } from './RatelimitNamespace.ts';
import { RatelimitOverride } from './RatelimitOverride.ts';
import { Role } from './Role.ts';
import { RolePermission } from './RolePermission.ts';
import { RootKey } from './RootKey.ts';
import { ServerSecret } from './ServerSecret.ts';
import {
  Invitation,
  Membership,
  Passkey,
  PasskeyChallenge,
  PasswordReset,
  SetupLink,
  User,
  UserSession,
} from './Team.ts';
import { VaultKey } from './VaultKey.ts';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent, WebhookKeyNotice } from './Webhook.ts';
import { Workspace } from './Workspace.ts';

export {
  Api,
  AuditEvent,
  DashboardSession,
  EventSpoolMark,
  Identity,
  Invitation,
  Key,
  KeyMigration,
  KeyPermission,
  KeyRole,
  KeyVerification,
  KeyVerificationPerDay,
  KeyVerificationPerHour,
  KeyVerificationPerMinute,
  KeyVerificationPerMonth,
  MAX_KEY_HASH_LENGTH,
  Membership,
  Passkey,
  PasskeyChallenge,
  PasswordReset,
  Permission,
  Portal,
  PortalSession,
  Ratelimit,
  RatelimitEvent,
  RatelimitNamespace,
  RatelimitOverride,
  RatelimitPerDay,
  RatelimitPerHour,
  RatelimitPerMinute,
  RatelimitPerMonth,
  Role,
  RolePermission,
  RootKey,
  ServerSecret,
  SetupLink,
  User,
  UserSession,
  VaultKey,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEvent,
  WebhookKeyNotice,
  Workspace,
};

export const entities = [
  Workspace,
  VaultKey,
  RootKey,
  Api,
  Identity,
  Key,
  Ratelimit,
  Permission,
  Role,
  KeyPermission,
  KeyRole,
  RolePermission,
  RatelimitNamespace,
  RatelimitOverride,
  KeyMigration,
  KeyVerification,
  RatelimitEvent,
  KeyVerificationPerMinute,
  KeyVerificationPerHour,
  KeyVerificationPerDay,
  KeyVerificationPerMonth,
  RatelimitPerMinute,
  RatelimitPerHour,
  RatelimitPerDay,
  RatelimitPerMonth,
  DashboardSession,
  AuditEvent,
  ServerSecret,
  EventSpoolMark,
  WebhookEndpoint,
  WebhookEvent,
  WebhookDelivery,
  WebhookAttempt,
  WebhookKeyNotice,
  User,
  Membership,
  Invitation,
  UserSession,
  Passkey,
  PasswordReset,
  SetupLink,
  PasskeyChallenge,
  Portal,
  PortalSession,
];

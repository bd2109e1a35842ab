import type { InferKyselyDB } from '@mikro-orm/sql';
import type {
  KeyVerificationPerDay,
  KeyVerificationPerHour,
  KeyVerificationPerMinute,
  KeyVerificationPerMonth,
  RatelimitPerDay,
  RatelimitPerHour,
  RatelimitPerMinute,
  RatelimitPerMonth,
} from './AnalyticsRollups.ts';
import type { ApiSchema } from './Api.ts';
import type { AuditEventSchema } from './AuditEvent.ts';
import type { DashboardSessionSchema } from './DashboardSession.ts';
import type { EventSpoolMarkSchema } from './EventSpoolMark.ts';
import type { IdentitySchema } from './Identity.ts';
import type { KeySchema } from './Key.ts';
import type { KeyMigrationSchema } from './KeyMigration.ts';
import type { KeyPermissionSchema } from './KeyPermission.ts';
import type { KeyRoleSchema } from './KeyRole.ts';
import type { KeyVerificationSchema } from './KeyVerification.ts';
import type { PermissionSchema } from './Permission.ts';
import type { PortalSchema, PortalSessionSchema } from './Portal.ts';
import type { RatelimitSchema } from './Ratelimit.ts';
import type { RatelimitEventSchema } from './RatelimitEvent.ts';
import type { RatelimitNamespaceSchema } from './RatelimitNamespace.ts';
import type { RatelimitOverrideSchema } from './RatelimitOverride.ts';
import type { RoleSchema } from './Role.ts';
import type { RolePermissionSchema } from './RolePermission.ts';
import type { RootKeySchema } from './RootKey.ts';
import type { ServerSecretSchema } from './ServerSecret.ts';
import type {
  InvitationSchema,
  MembershipSchema,
  PasskeyChallengeSchema,
  PasskeySchema,
  PasswordResetSchema,
  SetupLinkSchema,
  UserSchema,
  UserSessionSchema,
} from './Team.ts';
import type { VaultKeySchema } from './VaultKey.ts';
import type {
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  WebhookEventSchema,
  WebhookKeyNoticeSchema,
} from './Webhook.ts';
import type { WorkspaceSchema } from './Workspace.ts';

/**
 * The tables and columns as Kysely sees them, inferred from the entities (table names, snake_case
 * columns, foreign keys as `<relation>_id`): a query that names a table or column the entities do
 * not have, or reads a value as the wrong type, does not compile.
 */
export type Database = Omit<Inferred, 'vault_keys'> & {
  /** Keyed by its workspace: MikroORM infers no column for the owning side of a one-to-one key. */
  vault_keys: Inferred['vault_keys'] & { workspace_id: string };
};

type Inferred = InferKyselyDB<
  | typeof ApiSchema
  | typeof AuditEventSchema
  | typeof DashboardSessionSchema
  | typeof EventSpoolMarkSchema
  | typeof IdentitySchema
  | typeof KeySchema
  | typeof KeyMigrationSchema
  | typeof KeyPermissionSchema
  | typeof KeyRoleSchema
  | typeof KeyVerificationSchema
  | typeof PermissionSchema
  | typeof RatelimitSchema
  | typeof RatelimitEventSchema
  | typeof RatelimitNamespaceSchema
  | typeof RatelimitOverrideSchema
  | typeof RoleSchema
  | typeof RolePermissionSchema
  | typeof RootKeySchema
  | typeof ServerSecretSchema
  | typeof VaultKeySchema
  | typeof WebhookAttemptSchema
  | typeof WebhookDeliverySchema
  | typeof WebhookEndpointSchema
  | typeof WebhookEventSchema
  | typeof WebhookKeyNoticeSchema
  | typeof WorkspaceSchema
  | typeof UserSchema
  | typeof MembershipSchema
  | typeof InvitationSchema
  | typeof UserSessionSchema
  | typeof PasskeySchema
  | typeof PasskeyChallengeSchema
  | typeof PasswordResetSchema
  | typeof SetupLinkSchema
  | typeof PortalSchema
  | typeof PortalSessionSchema
  | typeof KeyVerificationPerMinute
  | typeof KeyVerificationPerHour
  | typeof KeyVerificationPerDay
  | typeof KeyVerificationPerMonth
  | typeof RatelimitPerMinute
  | typeof RatelimitPerHour
  | typeof RatelimitPerDay
  | typeof RatelimitPerMonth
>;

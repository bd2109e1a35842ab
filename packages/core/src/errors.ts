import type { LimitedResource } from './limits.ts';

/** Where a bad input was found, for the `errors[]` of a 400 answer. */
export interface FieldError {
  location: string;
  message: string;
  fix?: string;
}

/**
 * An expected failure with a public, safe message. `status` is the HTTP-style status the public
 * contract gives it; `type` is the path under the errors base URL (`service/data/api_not_found`).
 */
export class DomainError extends Error {
  readonly status: number;
  readonly type: string;
  readonly fieldErrors: FieldError[];

  constructor(status: number, type: string, detail: string, fieldErrors: FieldError[] = []) {
    super(detail);
    this.name = 'DomainError';
    this.status = status;
    this.type = type;
    this.fieldErrors = fieldErrors;
  }
}

type NotFoundResource =
  | 'api'
  | 'key'
  | 'role'
  | 'permission'
  | 'identity'
  | 'invitation'
  | 'member'
  | 'migration'
  | 'passkey'
  | 'portal'
  | 'portal_session'
  | 'ratelimit_namespace'
  | 'ratelimit_override'
  | 'root_key'
  | 'webhook_endpoint'
  | 'webhook_delivery'
  | 'workspace';

export function badRequest(detail: string, fieldErrors: FieldError[] = []): DomainError {
  return new DomainError(400, 'service/application/invalid_input', detail, fieldErrors);
}

/** A key of the wrong shape to be read at all (reference: `authentication/malformed`). */
export function malformedKey(detail: string, fieldErrors: FieldError[] = []): DomainError {
  return new DomainError(400, 'service/authentication/malformed', detail, fieldErrors);
}

export function unauthorized(detail: string): DomainError {
  return new DomainError(401, 'service/authentication/unauthorized', detail);
}

export function forbidden(missing: readonly string[]): DomainError {
  const detail =
    missing.length === 1
      ? `Missing permission: '${missing[0]}'.`
      : `Missing permissions: ${missing.map((p) => `'${p}'`).join(', ')}.`;
  return forbiddenBecause(detail);
}

/** A 403 whose cause is not a missing permission, explained in `detail`. */
export function forbiddenBecause(detail: string): DomainError {
  return new DomainError(403, 'service/authorization/forbidden', detail);
}

function notFound(resource: NotFoundResource, detail: string): DomainError {
  return new DomainError(404, `service/data/${resource}_not_found`, detail);
}

// What the public is told of a resource that does not exist for the caller (unknown, deleted, or
// another workspace's), in one place: each wording is the reference product's, which clients match on.

export const apiNotFound = (apiId: string) => notFound('api', `The API '${apiId}' was not found.`);

export const portalNotFound = (portalId: string) => notFound('portal', `The portal '${portalId}' was not found.`);

/** A key named by id, or (no id) one presented by its secret. */
export const keyNotFound = (keyId?: string) =>
  notFound('key', keyId === undefined ? 'The specified key was not found.' : `The key '${keyId}' was not found.`);

export const rootKeyNotFound = (rootKeyId: string) =>
  notFound('root_key', `The root key '${rootKeyId}' was not found.`);

/** A role named in a change to a key, or (no name) the one a permissions.* call asked for. */
export const roleNotFound = (name?: string) =>
  notFound('role', name === undefined ? 'The requested role does not exist.' : `Role '${name}' was not found.`);

/** A permission named in a change to a key, or (no slug) the one a permissions.* call asked for. */
export const permissionNotFound = (slug?: string) =>
  notFound(
    'permission',
    slug === undefined ? 'The requested permission does not exist.' : `Permission '${slug}' was not found.`,
  );

export const identityNotFound = () => notFound('identity', 'This identity does not exist.');

export const migrationNotFound = (migrationId: string) =>
  notFound('migration', `The migration '${migrationId}' was not found.`);

/** Every ratelimit procedure but limiting, which creates a missing namespace. */
export const namespaceNotFound = () => notFound('ratelimit_namespace', 'This namespace does not exist.');

export const overrideNotFound = () => notFound('ratelimit_override', 'This override does not exist.');

export const webhookEndpointNotFound = (endpointId: string) =>
  notFound('webhook_endpoint', `The webhook endpoint '${endpointId}' was not found.`);

export const webhookDeliveryNotFound = (deliveryId: string) =>
  notFound('webhook_delivery', `The webhook delivery '${deliveryId}' was not found.`);

/** The caller's own workspace, deleted between authenticating its root key and using it. */
export const workspaceNotFound = () => notFound('workspace', 'This workspace does not exist: it was deleted.');

/** A person named by user id who is not a member of the caller's workspace. */
export const memberNotFound = (userId: string) => notFound('member', `The member '${userId}' was not found.`);

/** One of the signed-in person's own passkeys, named by id: unknown, removed, or someone else's alike. */
export const passkeyNotFound = (passkeyId: string) => notFound('passkey', `You have no passkey '${passkeyId}'.`);

/** An invitation named by id, or (no id) one presented by its link: unknown, used, revoked or expired alike. */
export const invitationNotFound = (invitationId?: string) =>
  notFound(
    'invitation',
    invitationId === undefined
      ? 'This invitation is not valid: it was used, revoked or has expired.'
      : `The pending invitation '${invitationId}' was not found.`,
  );

/** Limiting on a deleted namespace: told apart from a missing one (which limiting creates). */
export const namespaceGone = () =>
  new DomainError(
    410,
    'service/data/ratelimit_namespace_gone',
    'This namespace has been deleted. Contact support to restore.',
  );

/** Deleting an API that has delete protection enabled. */
export const deleteProtected = () =>
  new DomainError(
    412,
    'service/application/protected_resource',
    'This API has delete protection enabled. Disable it before attempting to delete.',
  );

function conflict(resource: string, detail: string): DomainError {
  return new DomainError(409, `service/data/${resource}_already_exists`, detail);
}

export const portalSlugExists = (slug: string) =>
  conflict('portal', `A portal with slug '${slug}' already exists in this workspace.`);

export const identityExists = (externalId: string) =>
  conflict('identity', `Identity with externalId '${externalId}' already exists in this workspace.`);

export const roleExists = (name: string) =>
  conflict('role', `A role with name '${name}' already exists in this workspace`);

export const permissionExists = (slug: string) =>
  conflict('permission', `A permission with slug '${slug}' already exists in this workspace`);

export const namespaceExists = (name: string) =>
  conflict('ratelimit_namespace', `A namespace named '${name}' already exists.`);

/** Who holds what, for each bound's wording; `configured`: an operator sets it (LIMIT_*). */
const LIMITED: Record<LimitedResource, { holder: string; things: string; configured: boolean }> = {
  ratelimitNamespaces: { holder: 'A workspace', things: 'rate-limit namespaces', configured: true },
  ratelimitOverrides: { holder: 'A namespace', things: 'overrides', configured: true },
  ratelimitWildcardOverrides: { holder: 'A namespace', things: 'wildcard overrides', configured: true },
  roles: { holder: 'A workspace', things: 'roles', configured: true },
  permissions: { holder: 'A workspace', things: 'permissions', configured: true },
  keyRoles: { holder: 'A key', things: 'roles', configured: false },
  keyPermissions: { holder: 'A key', things: 'direct permissions', configured: false },
  keyRolePermissions: { holder: "A key's roles", things: 'permissions between them', configured: false },
};

/**
 * A change that would take a workspace, a namespace or a key past one of its bounds
 * (docs/contract.md#limits): a 412, as for every bound reached, naming the bound; nothing is changed.
 */
export function limitExceeded(resource: LimitedResource, limit: number): DomainError {
  const { holder, things, configured } = LIMITED[resource];
  const remedy = configured
    ? 'Delete some that are no longer needed, or ask the operator of this server to raise the limit.'
    : 'Take some away first.';
  return preconditionFailed(
    `${holder} may hold at most ${limit} ${things}, and this request would exceed that. ${remedy}`,
  );
}

/** Failed dashboard sign-ins one client address may make per window (SIGN_IN_THROTTLE_WINDOW_SECONDS). */
export const SIGN_IN_FAILURES_ALLOWED = 10;
export const SIGN_IN_THROTTLE_WINDOW_SECONDS = 15 * 60;

export const signInThrottled = (retryAfterSeconds: number) =>
  new DomainError(
    429,
    'user/too_many_requests/sign_in_throttled',
    `Too many failed sign-ins from this address. Try again in ${retryAfterSeconds} s.`,
  );

/** A portal customer's session past its requests per minute (docs/portal.md#limits). */
export const portalSessionThrottled = (retryAfterSeconds: number) =>
  new DomainError(
    429,
    'user/too_many_requests/portal_session_throttled',
    `Too many requests in this portal session. Try again in ${retryAfterSeconds} s.`,
  );

/** An address that asked for more passkey sign-in challenges than it could be answering (team/passkeys.ts). */
export const passkeyChallengesThrottled = (retryAfterSeconds: number) =>
  new DomainError(
    429,
    'user/too_many_requests/sign_in_throttled',
    `Too many passkey sign-ins started from this address. Try again in ${retryAfterSeconds} s.`,
  );

export function preconditionFailed(detail: string): DomainError {
  return new DomainError(412, 'service/application/precondition_failed', detail);
}

// The rules of authority over a workspace's people (core/src/team/roles.ts).

/** Granting (inviting with, or changing someone to) a role above the caller's own. */
export const roleAboveOwn = (role: string) =>
  forbiddenBecause(`Granting the role '${role}' needs a role at least as high: nobody grants a role above their own.`);

/** Changing or removing a person whose role is above the caller's own. */
export const memberAboveOwn = (role: string) =>
  forbiddenBecause(`Changing or removing a member whose role is '${role}' needs a role at least as high.`);

export const ownMembershipUnchangeable = () =>
  forbiddenBecause('Nobody changes their own role or removes themselves: another owner or admin does.');

export const lastOwner = () =>
  preconditionFailed(
    'A workspace keeps at least one owner: make another member owner before this one is demoted or removed.',
  );

/** `members.inviteMember` naming someone who already belongs to the workspace. */
export const alreadyMember = (email: string) =>
  conflict(
    'member',
    `'${email}' is already a member of this workspace: change their role with members.updateMember instead of inviting them.`,
  );

/** `members.createPasswordReset` for the caller's own account. */
export const ownPasswordResetRefused = () =>
  forbiddenBecause(
    'Nobody issues a password reset link for themselves: change your password in your account settings, or ask another owner or admin.',
  );

/** `members.createPasswordReset` for a person whose role is above the caller's own. */
export const passwordResetAboveOwn = (role: string) =>
  forbiddenBecause(`Resetting the password of a member whose role is '${role}' needs a role at least as high.`);

/**
 * `members.createPasswordReset` for a person who also belongs to a workspace where the caller does not
 * manage people at their rank: the new password would open that workspace too.
 */
export const passwordResetReachesElsewhere = () =>
  forbiddenBecause(
    'This person also belongs to another workspace where you do not manage people at their rank, and a new password would sign them in there too: an owner or admin of that workspace issues the reset link.',
  );

/** A password the policy refuses (core/src/team/passwords.ts); the password itself is never repeated. */
export const weakPassword = (detail: string, field = 'password') =>
  badRequest(detail, [{ location: `body.${field}`, message: detail }]);

// A person's own account (packages/procedures/src/routers/account/). Each wording covers every
// cause alike, so no answer tells whether an email has an account or a link ever existed.

/** An email and password that do not sign in: unknown email and wrong password alike. */
export const wrongCredentials = () => unauthorized('The email or password is wrong.');

/** A setup link that is unknown, used or expired. */
export const setupLinkInvalid = () =>
  unauthorized(
    'This setup link is not valid: it was used or has expired. Run `npx keyplane setup-link` for a new one.',
  );

/** An invitation link that is unknown, used, revoked or expired. */
export const invitationLinkInvalid = () =>
  unauthorized('This invitation is not valid: it was used, revoked or has expired. Ask for a new one.');

/** A password-reset link that is unknown, used or expired. */
export const passwordResetLinkInvalid = () =>
  unauthorized(
    'This password-reset link is not valid: it was used or has expired. Ask an owner or admin for a new one.',
  );

/** A person whose password was right but who belongs to no workspace any more. */
export const noMembershipLeft = () =>
  forbiddenBecause(
    'Your account belongs to no workspace any more: ask an owner or admin of a workspace to invite you again.',
  );

/** Changing a password with a current password that is wrong (the caller is signed in: no enumeration). */
export const currentPasswordWrong = () => forbiddenBecause('The current password is wrong.');

/** Too many failed sign-ins to one email, whether or not it has an account. */
export const accountSignInThrottled = (retryAfterSeconds: number) =>
  new DomainError(
    429,
    'user/too_many_requests/sign_in_throttled',
    `Too many failed sign-ins to this email. Try again in ${retryAfterSeconds} s.`,
  );

/** A workspace the person is not a member of (or that was deleted): the same answer for both. */
export const notAMemberOf = (workspaceId: string) =>
  notFound('workspace', `You are not a member of a workspace '${workspaceId}'.`);

/** A setup link used once the workspace has an owner: the owner invites people instead. */
export const workspaceOwned = () =>
  new DomainError(
    409,
    'service/data/owner_already_exists',
    'This workspace has an owner already: ask them for an invitation instead of a setup link.',
  );

/** A first owner's email that an account has already (only the holder of a setup link is told). */
export const accountExists = () =>
  conflict('account', 'An account with this email exists already: use another email, or sign in with it.');

/** A field a request needs in its case, though not in every case (`body.<field>`). */
export const fieldRequired = (field: string, why: string) =>
  badRequest(`${field} is required: ${why}`, [{ location: `body.${field}`, message: `required: ${why}` }]);

/** What only a workspace's owner may change (a person with role owner, or a root key holding an owner's every permission). */
export const ownerOnly = (what: string) =>
  forbiddenBecause(
    `Only an owner of the workspace may ${what}: a person with the role 'owner', or a root key holding every permission.`,
  );

/** Root keys may not open the dashboard in this workspace, or on this server. */
export const rootKeySignInOff = (where: 'workspace' | 'server') =>
  forbiddenBecause(
    where === 'workspace'
      ? 'An owner turned off signing in to the dashboard with a root key for this workspace: sign in with your email and password, a passkey or single sign-on.'
      : 'Signing in to the dashboard with a root key is turned off on this server (DASHBOARD_ROOT_KEY_SIGNIN=false): sign in with your email and password, a passkey or single sign-on.',
  );

/** `webhooks.createEndpoint` in a workspace that has as many endpoints as it may (docs/contract.md#limits). */
export const webhookEndpointLimitReached = (limit: number) =>
  preconditionFailed(
    `This workspace has ${limit} webhook endpoints, the most it may have: delete one before creating another.`,
  );

/** The 412 causes (docs/contract.md#key-preconditions), with the detail text each one answers. */
export const PRECONDITION_DETAILS = {
  vaultNotSetUp: 'The vault is not set up for this workspace, so keys cannot be stored recoverably or decrypted.',
  keyAuthDisabled: 'The requested API is not set up to handle keys: key authentication is disabled for it.',
  encryptionDisabled: 'The requested API does not support key encryption: encryption is not enabled for it.',
} as const;

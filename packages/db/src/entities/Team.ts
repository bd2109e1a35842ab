import { TEAM_ROLES } from '@keyplane/core';
import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './Workspace.ts';

// People and their sign-ins. Every token (sessions, invitations, setup links) is stored as its
// SHA-256 only, as root keys are (core/src/team/tokens.ts).

/** A person: one account, whatever workspaces they belong to. */
export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.string().length(64).primary(),
    /** As the person wrote it; unique whatever its case (users_email_lower_unique). */
    email: p.string().length(320),
    name: p.string().length(255),
    /** An argon2id PHC string; null for a person who signs in only with passkeys or single sign-on. */
    passwordHash: p.string().length(255).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [
    {
      name: 'users_email_lower_unique',
      expression: 'create unique index "users_email_lower_unique" on "users" (lower("email"))',
    },
  ],
});
export class User extends UserSchema.class {}
UserSchema.setClass(User);

/** A person's role in one workspace. */
export const MembershipSchema = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  properties: {
    workspace: () => p.manyToOne(Workspace).primary().deleteRule('cascade'),
    user: () => p.manyToOne(User).primary().deleteRule('cascade').index(),
    role: p.enum(TEAM_ROLES),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastSignInAt: p.datetime().nullable(),
  },
});
export class Membership extends MembershipSchema.class {}
MembershipSchema.setClass(Membership);

/** An invitation to a workspace: pending until accepted, revoked or expired, and used once. */
export const InvitationSchema = defineEntity({
  name: 'Invitation',
  tableName: 'invitations',
  properties: {
    id: p.string().length(64).primary(),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade'),
    email: p.string().length(320),
    role: p.enum(TEAM_ROLES),
    tokenHash: p.string().length(64).unique(),
    /** Null when a root key invited, or the inviter's account is gone. */
    invitedByUser: () => p.manyToOne(User).nullable().deleteRule('set null').index(),
    expiresAt: p.datetime(),
    acceptedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['workspace', 'id'] }],
});
export class Invitation extends InvitationSchema.class {}
InvitationSchema.setClass(Invitation);

/** A person signed in to one workspace, until idle too long, past its absolute expiry, or revoked. */
export const UserSessionSchema = defineEntity({
  name: 'UserSession',
  tableName: 'user_sessions',
  properties: {
    id: p.string().length(64).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    workspace: () => p.manyToOne(Workspace).deleteRule('cascade').index(),
    tokenHash: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastSeenAt: p.datetime(),
    /** Moves forward with use (`last_seen_at` plus the idle timeout). */
    idleExpiresAt: p.datetime(),
    absoluteExpiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['user', 'workspace'] }],
});
export class UserSession extends UserSessionSchema.class {}
UserSessionSchema.setClass(UserSession);

/** A WebAuthn credential a person registered, to sign in without a password. */
export const PasskeySchema = defineEntity({
  name: 'Passkey',
  tableName: 'passkeys',
  properties: {
    id: p.string().length(64).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    /** The credential id, base64url (WebAuthn allows up to 1023 bytes). */
    credentialId: p.string().length(1400).unique(),
    /** The COSE public key. */
    publicKey: p.blob(),
    /** The signature counter the authenticator last reported. */
    counter: p.bigint('number').default(0),
    /** `usb`, `nfc`, `ble`, `internal`, `hybrid`: hints for the browser. */
    transports: p.array().default([]),
    name: p.string().length(255),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
  },
});
export class Passkey extends PasskeySchema.class {}
PasskeySchema.setClass(Passkey);

/** A one-time link that creates the first owner (`<PUBLIC_URL>/dashboard/setup#<token>`). */
export const SetupLinkSchema = defineEntity({
  name: 'SetupLink',
  tableName: 'setup_links',
  properties: {
    tokenHash: p.string().length(64).primary(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});
export class SetupLink extends SetupLinkSchema.class {}
SetupLinkSchema.setClass(SetupLink);

/** A single-use link an owner or admin issued for a person to set a new password. */
export const PasswordResetSchema = defineEntity({
  name: 'PasswordReset',
  tableName: 'password_resets',
  properties: {
    id: p.string().length(64).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    tokenHash: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});
export class PasswordReset extends PasswordResetSchema.class {}
PasswordResetSchema.setClass(PasswordReset);

/**
 * A WebAuthn challenge handed out for one ceremony (adding a passkey, or signing in with one),
 * stored as its SHA-256 so that whichever node the answer reaches can check it, and deleted as it is
 * used: each is good for one answer, and only until it expires.
 */
export const PasskeyChallengeSchema = defineEntity({
  name: 'PasskeyChallenge',
  tableName: 'passkey_challenges',
  properties: {
    challengeHash: p.string().length(64).primary(),
    /** `registration` (adding a passkey, for `user`) or `sign_in` (anyone's discoverable passkey). */
    purpose: p.enum(['registration', 'sign_in'] as const),
    /** The person adding a passkey; null for a sign-in, which does not know who is signing in yet. */
    user: () => p.manyToOne(User).nullable().deleteRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().index(),
  },
});
export class PasskeyChallenge extends PasskeyChallengeSchema.class {}
PasskeyChallengeSchema.setClass(PasskeyChallenge);

import { type Membership, TEAM_ROLES, type TeamRole } from './roles.ts';

/**
 * Single sign-on (docs/team-accounts.md#single-sign-on-oidc): who an OpenID provider's answer says a
 * person is, and the role their groups give them in the workspace SSO people join.
 */
export interface SsoRules {
  /** OIDC_ROLE_CLAIM: the claim holding the groups (`a.b` reaches into an object claim). */
  roleClaim: string;
  /** OIDC_ROLE_MAP: groups to roles; the highest role matched wins. */
  roleMap: readonly { group: string; role: TeamRole }[];
  /** OIDC_DEFAULT_ROLE: the role of a person in no mapped group; undefined: they are refused. */
  defaultRole: TeamRole | undefined;
  /** OIDC_ALLOWED_DOMAINS, lower case; undefined: any domain. */
  allowedDomains: readonly string[] | undefined;
}

export type SsoRefusalCode = 'no_email' | 'email_not_verified' | 'domain_not_allowed' | 'no_mapped_group';

export type SsoDecision =
  | { accepted: true; email: string; name: string; role: TeamRole; groups: string[] }
  | { accepted: false; code: SsoRefusalCode; reason: string; email: string | undefined };

type Claims = Readonly<Record<string, unknown>>;

const rank = (role: TeamRole) => TEAM_ROLES.length - 1 - TEAM_ROLES.indexOf(role);

/**
 * Decides an SSO sign-in from the ID token's claims and the userinfo answer (which openid-client
 * has matched to the same subject). Each claim is read from the userinfo answer when it holds it,
 * else from the ID token: some providers put groups only in one of them (Entra ID: the ID token).
 */
export function decideSsoSignIn(idToken: Claims, userinfo: Claims | undefined, rules: SsoRules): SsoDecision {
  const claim = (name: string) => readClaim(userinfo, name) ?? readClaim(idToken, name);
  const rawEmail = claim('email');
  const email = typeof rawEmail === 'string' ? rawEmail.trim() : '';
  const at = email.lastIndexOf('@');
  if (at < 1 || at === email.length - 1) {
    return refuse(
      'no_email',
      'Your identity provider did not send an email address for your account, and Keyplane knows people by theirs. Ask your administrator to release the email claim (the "email" scope) to Keyplane.',
    );
  }
  // Only an explicit "not verified" refuses: providers that verify every address (Entra ID) omit it.
  const verified = claim('email_verified');
  if (verified === false || verified === 'false') {
    return refuse(
      'email_not_verified',
      `Your identity provider says the email address ${email} is not verified. Verify it there, then sign in again.`,
      email,
    );
  }
  const domain = email.slice(at + 1).toLowerCase();
  if (rules.allowedDomains !== undefined && !rules.allowedDomains.includes(domain)) {
    return refuse(
      'domain_not_allowed',
      `Accounts with an address at ${domain} may not sign in to this Keyplane. Sign in with your organisation's account.`,
      email,
    );
  }
  const groups = groupsOf(claim(rules.roleClaim));
  const role = highestMappedRole(groups, rules.roleMap) ?? rules.defaultRole;
  if (role === undefined) {
    return refuse(
      'no_mapped_group',
      `Your account (${email}) is in none of the groups that give access to Keyplane. Ask your administrator to add you to one.`,
      email,
    );
  }
  return { accepted: true, email, name: nameOf(claim, email), role, groups };
}

function refuse(code: SsoRefusalCode, reason: string, email?: string): SsoDecision {
  return { accepted: false, code, reason, email };
}

/** A claim by name, or by a dotted path into object claims (`realm_access.roles`) when no claim has that name. */
function readClaim(claims: Claims | undefined, name: string): unknown {
  if (claims === undefined) return undefined;
  if (Object.hasOwn(claims, name)) return claims[name];
  let value: unknown = claims;
  for (const part of name.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The groups claim as a list: an array of names, or one name as a string. */
export function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return value.trim() === '' ? [] : [value.trim()];
  if (!Array.isArray(value)) return [];
  return value.filter((group): group is string => typeof group === 'string').map((group) => group.trim());
}

/** The highest role the map gives any of the groups; undefined when it gives none. */
export function highestMappedRole(
  groups: readonly string[],
  roleMap: readonly { group: string; role: TeamRole }[],
): TeamRole | undefined {
  let best: TeamRole | undefined;
  for (const { group, role } of roleMap) {
    if (groups.includes(group) && (best === undefined || rank(role) > rank(best))) best = role;
  }
  return best;
}

function nameOf(claim: (name: string) => unknown, email: string): string {
  const text = (name: string) => {
    const value = claim(name);
    return typeof value === 'string' ? value.trim() : '';
  };
  const full = text('name') || [text('given_name'), text('family_name')].filter(Boolean).join(' ');
  return (full || text('preferred_username') || email.slice(0, email.lastIndexOf('@'))).slice(0, 200);
}

/** What setting an SSO person's membership reads and writes, inside one transaction. */
export interface SsoMembershipStore {
  /** Every membership of the workspace, locked until the transaction ends (owners are counted under it). */
  lockMemberships(workspaceId: string): Promise<Membership[]>;
  setMemberRole(workspaceId: string, userId: string, role: TeamRole): Promise<void>;
  addMember(workspaceId: string, userId: string, role: TeamRole): Promise<void>;
}

export type SsoMembershipOutcome =
  /** `role`: the role the person has now, when it is not the one asked for (`joiningOnly`). */
  | { applied: true; previousRole: TeamRole | undefined; role?: TeamRole }
  | { applied: false; reason: string; currentRole: TeamRole };

/**
 * Gives the person the role their groups map to, at every SSO sign-in: a person moved to another
 * group gets the new role. With `joiningOnly` (no OIDC_ROLE_MAP: the provider sends no groups, as
 * Google's does not) only a newcomer is given the role, and members keep the one set in Keyplane.
 * The last owner is never demoted this way (a workspace keeps an owner); the sign-in is refused
 * with the reason instead.
 */
export async function applySsoRole(
  store: SsoMembershipStore,
  request: { workspaceId: string; userId: string; role: TeamRole; joiningOnly?: boolean },
): Promise<SsoMembershipOutcome> {
  const memberships = await store.lockMemberships(request.workspaceId);
  const current = memberships.find((membership) => membership.userId === request.userId);
  if (current === undefined) {
    await store.addMember(request.workspaceId, request.userId, request.role);
    return { applied: true, previousRole: undefined };
  }
  if (current.role === request.role) return { applied: true, previousRole: current.role };
  if (request.joiningOnly === true) return { applied: true, previousRole: current.role, role: current.role };
  const owners = memberships.filter((membership) => membership.role === 'owner').length;
  if (current.role === 'owner' && owners <= 1) {
    return {
      applied: false,
      currentRole: current.role,
      reason: `You are the last owner of this workspace, and your identity provider's groups now give you the role ${request.role}. A workspace keeps at least one owner: make another person owner first, or ask your administrator to put you back in a group mapped to owner.`,
    };
  }
  await store.setMemberRole(request.workspaceId, request.userId, request.role);
  return { applied: true, previousRole: current.role };
}

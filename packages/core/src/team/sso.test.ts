import { describe, expect, it } from 'vitest';
import type { Membership, TeamRole } from './roles.ts';
import {
  applySsoRole,
  decideSsoSignIn,
  groupsOf,
  highestMappedRole,
  type SsoMembershipStore,
  type SsoRules,
} from './sso.ts';

const rules = (overrides: Partial<SsoRules> = {}): SsoRules => ({
  roleClaim: 'groups',
  roleMap: [
    { group: 'kp-viewers', role: 'viewer' },
    { group: 'kp-admins', role: 'admin' },
    { group: 'kp-devs', role: 'member' },
  ],
  defaultRole: undefined,
  allowedDomains: undefined,
  ...overrides,
});

const ada = { sub: 'u1', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' };

describe('decideSsoSignIn', () => {
  it('accepts a person in a mapped group with that role, their email and name', () => {
    expect(decideSsoSignIn({ ...ada, groups: ['kp-devs'] }, undefined, rules())).toEqual({
      accepted: true,
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      role: 'member',
      groups: ['kp-devs'],
    });
  });

  it('gives the highest role any of their groups maps to, whatever the order', () => {
    const decision = decideSsoSignIn({ ...ada, groups: ['kp-viewers', 'kp-admins', 'kp-devs', 'other'] }, {}, rules());
    expect(decision).toMatchObject({ accepted: true, role: 'admin' });
  });

  it('reads a groups claim given as one string', () => {
    expect(decideSsoSignIn({ ...ada, groups: 'kp-admins' }, undefined, rules())).toMatchObject({ role: 'admin' });
  });

  it('reads the claims of the userinfo answer before the ID token, and the ID token for what userinfo lacks', () => {
    const decision = decideSsoSignIn(
      { sub: 'u1', email: 'old@example.com', groups: ['kp-admins'] },
      { sub: 'u1', email: 'ada@example.com', groups: ['kp-viewers'] },
      rules(),
    );
    expect(decision).toMatchObject({ accepted: true, email: 'ada@example.com', role: 'viewer' });
    const groupsOnlyInToken = decideSsoSignIn(
      { sub: 'u1', groups: ['kp-admins'] },
      { sub: 'u1', email: 'ada@example.com' },
      rules(),
    );
    expect(groupsOnlyInToken).toMatchObject({ accepted: true, role: 'admin' });
  });

  it('reads the role claim named by OIDC_ROLE_CLAIM, and a dotted path into an object claim', () => {
    expect(decideSsoSignIn({ ...ada, roles: ['kp-admins'] }, undefined, rules({ roleClaim: 'roles' }))).toMatchObject({
      role: 'admin',
    });
    const keycloakRoles = { ...ada, realm_access: { roles: ['kp-devs'] } };
    expect(decideSsoSignIn(keycloakRoles, undefined, rules({ roleClaim: 'realm_access.roles' }))).toMatchObject({
      role: 'member',
    });
  });

  it('refuses without an email, saying so', () => {
    for (const email of [undefined, '', 'not-an-address', 'ada@', 42]) {
      const decision = decideSsoSignIn({ sub: 'u1', email, groups: ['kp-admins'] }, undefined, rules());
      expect(decision).toMatchObject({ accepted: false, code: 'no_email' });
      if (!decision.accepted) expect(decision.reason).toMatch(/did not send an email address/);
    }
  });

  it('refuses an email the provider says is not verified, and accepts one it says nothing about', () => {
    for (const unverified of [false, 'false']) {
      const decision = decideSsoSignIn(
        { ...ada, email_verified: unverified, groups: ['kp-admins'] },
        undefined,
        rules(),
      );
      expect(decision).toMatchObject({ accepted: false, code: 'email_not_verified', email: 'ada@example.com' });
      if (!decision.accepted) expect(decision.reason).toContain('ada@example.com');
    }
    const { email_verified: _, ...unsaid } = ada;
    expect(decideSsoSignIn({ ...unsaid, groups: ['kp-admins'] }, undefined, rules())).toMatchObject({ accepted: true });
  });

  it('refuses a domain outside OIDC_ALLOWED_DOMAINS, whatever the case of the address', () => {
    const allowed = rules({ allowedDomains: ['example.com'] });
    expect(
      decideSsoSignIn({ ...ada, email: 'Ada@EXAMPLE.com', groups: ['kp-admins'] }, undefined, allowed),
    ).toMatchObject({ accepted: true, email: 'Ada@EXAMPLE.com' });
    const decision = decideSsoSignIn({ ...ada, email: 'ada@gmail.com', groups: ['kp-admins'] }, undefined, allowed);
    expect(decision).toMatchObject({ accepted: false, code: 'domain_not_allowed', email: 'ada@gmail.com' });
    if (!decision.accepted) expect(decision.reason).toMatch(/at gmail\.com may not sign in/);
  });

  it('refuses a person in no mapped group when there is no default role, and gives the default role otherwise', () => {
    const decision = decideSsoSignIn({ ...ada, groups: ['sales'] }, undefined, rules());
    expect(decision).toMatchObject({ accepted: false, code: 'no_mapped_group' });
    if (!decision.accepted) expect(decision.reason).toMatch(/none of the groups that give access/);
    expect(decideSsoSignIn(ada, undefined, rules())).toMatchObject({ accepted: false, code: 'no_mapped_group' });
    expect(decideSsoSignIn({ ...ada, groups: ['sales'] }, undefined, rules({ defaultRole: 'viewer' }))).toMatchObject({
      accepted: true,
      role: 'viewer',
    });
    // A mapped group still wins over the default.
    expect(
      decideSsoSignIn({ ...ada, groups: ['kp-admins'] }, undefined, rules({ defaultRole: 'viewer' })),
    ).toMatchObject({
      role: 'admin',
    });
  });

  it('names a person from name, else given and family names, else the username, else the address', () => {
    const groups = ['kp-devs'];
    const name = (claims: Record<string, unknown>) => {
      const decision = decideSsoSignIn({ email: 'ada@example.com', groups, ...claims }, undefined, rules());
      return decision.accepted ? decision.name : undefined;
    };
    expect(name({ name: ' Ada L. ' })).toBe('Ada L.');
    expect(name({ given_name: 'Ada', family_name: 'Lovelace' })).toBe('Ada Lovelace');
    expect(name({ preferred_username: 'ada.l' })).toBe('ada.l');
    expect(name({})).toBe('ada');
  });
});

describe('groupsOf and highestMappedRole', () => {
  it('keeps only string groups', () => {
    expect(groupsOf(['a', 3, null, ' b '])).toEqual(['a', 'b']);
    expect(groupsOf(undefined)).toEqual([]);
    expect(groupsOf('')).toEqual([]);
    expect(groupsOf({ a: 1 })).toEqual([]);
  });

  it('matches group names exactly', () => {
    const map = [{ group: 'kp-admins', role: 'admin' as const }];
    expect(highestMappedRole(['/kp-admins', 'KP-ADMINS'], map)).toBeUndefined();
    expect(highestMappedRole(['kp-admins'], map)).toBe('admin');
  });
});

function memoryStore(initial: Membership[]) {
  const memberships = new Map(initial.map((membership) => [membership.userId, membership.role]));
  const store: SsoMembershipStore = {
    async lockMemberships() {
      return [...memberships].map(([userId, role]) => ({ userId, role }));
    },
    async setMemberRole(_workspaceId, userId, role) {
      memberships.set(userId, role);
    },
    async addMember(_workspaceId, userId, role) {
      memberships.set(userId, role);
    },
  };
  return { store, roleOf: (userId: string): TeamRole | undefined => memberships.get(userId) };
}

describe('applySsoRole', () => {
  const workspaceId = 'ws_1';

  it('adds a person who is no member yet with the role', async () => {
    const { store, roleOf } = memoryStore([{ userId: 'usr_owner', role: 'owner' }]);
    expect(await applySsoRole(store, { workspaceId, userId: 'usr_new', role: 'member' })).toEqual({
      applied: true,
      previousRole: undefined,
    });
    expect(roleOf('usr_new')).toBe('member');
  });

  it('changes a member’s role to the one their groups give now, up or down', async () => {
    const { store, roleOf } = memoryStore([
      { userId: 'usr_a', role: 'owner' },
      { userId: 'usr_b', role: 'viewer' },
    ]);
    expect(await applySsoRole(store, { workspaceId, userId: 'usr_b', role: 'admin' })).toEqual({
      applied: true,
      previousRole: 'viewer',
    });
    expect(roleOf('usr_b')).toBe('admin');
    expect(await applySsoRole(store, { workspaceId, userId: 'usr_b', role: 'viewer' })).toMatchObject({
      applied: true,
    });
    expect(roleOf('usr_b')).toBe('viewer');
  });

  it('with joiningOnly, gives the role to a newcomer and leaves a member the role they have', async () => {
    const { store, roleOf } = memoryStore([{ userId: 'usr_a', role: 'admin' }]);
    expect(await applySsoRole(store, { workspaceId, userId: 'usr_a', role: 'viewer', joiningOnly: true })).toEqual({
      applied: true,
      previousRole: 'admin',
      role: 'admin',
    });
    expect(roleOf('usr_a')).toBe('admin');
    await applySsoRole(store, { workspaceId, userId: 'usr_new', role: 'viewer', joiningOnly: true });
    expect(roleOf('usr_new')).toBe('viewer');
  });

  it('demotes an owner while another owner remains, and refuses to demote the last one, saying why', async () => {
    const { store, roleOf } = memoryStore([
      { userId: 'usr_a', role: 'owner' },
      { userId: 'usr_b', role: 'owner' },
    ]);
    expect(await applySsoRole(store, { workspaceId, userId: 'usr_a', role: 'admin' })).toEqual({
      applied: true,
      previousRole: 'owner',
    });
    const refused = await applySsoRole(store, { workspaceId, userId: 'usr_b', role: 'member' });
    expect(refused).toMatchObject({ applied: false, currentRole: 'owner' });
    if (!refused.applied) expect(refused.reason).toMatch(/last owner.*role member/);
    expect(roleOf('usr_b')).toBe('owner');
    expect(await applySsoRole(store, { workspaceId, userId: 'usr_b', role: 'owner' })).toMatchObject({ applied: true });
  });
});

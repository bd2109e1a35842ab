import { describe, expect, it } from 'vitest';
import { auditActorId, auditActorName, auditChanges, auditPredicate, auditSentence } from './auditSentences.ts';

describe('auditSentence', () => {
  it('says what changed in words, with names, each setting before and after', () => {
    const facts = {
      event: 'keys.updateKey',
      resources: { keyId: 'key_1' },
      details: {
        names: { keyId: 'checkout-v2' },
        changes: [
          { resource: 'keyId', field: 'name', before: 'checkout', after: 'checkout-v2' },
          { resource: 'keyId', field: 'enabled', before: true, after: false },
          { resource: 'keyId', field: 'credits', before: null, after: 100 },
          { resource: 'keyId', field: 'roles', before: [], after: ['editor', 'reader'] },
        ],
      },
    };
    expect(auditSentence('bootstrap', facts)).toBe(
      'bootstrap changed key “checkout-v2”: name from “checkout” to “checkout-v2”; enabled from yes to no; ' +
        'credits from unlimited to 100; roles from none to editor, reader.',
    );
  });

  it('names where a thing was made, and falls back to ids for events recorded without names', () => {
    expect(
      auditPredicate({
        event: 'keys.createKey',
        resources: { apiId: 'api_1', keyId: 'key_1' },
        details: { names: { apiId: 'billing', keyId: 'checkout' }, changes: [] },
      }),
    ).toBe('created key “checkout” in API “billing”');
    expect(auditPredicate({ event: 'keys.deleteKey', resources: { keyId: 'key_1' }, details: null })).toBe(
      'deleted key key_1',
    );
    expect(auditSentence('admin', { event: 'dashboard.signIn', resources: {}, details: null })).toBe(
      'admin signed in to the dashboard.',
    );
    expect(auditPredicate({ event: 'keys.migrateKeys', resources: {}, details: null })).toBe('called migrate keys');
  });

  it('writes numbers grouped and no value as none', () => {
    const [credits] = auditChanges({
      event: 'keys.updateCredits',
      resources: {},
      details: { changes: [{ resource: 'keyId', field: 'credits', before: 1500, after: 0 }] },
    });
    expect(credits).toEqual({ field: 'credits', label: 'credits', before: '1,500', after: '0' });
  });

  it('tells what was done to people and invitations, by their email address', () => {
    expect(
      auditSentence('Olga', {
        event: 'members.updateMember',
        resources: { userId: 'usr_1' },
        details: {
          names: { userId: 'vic@example.test' },
          changes: [{ resource: 'userId', field: 'role', before: 'viewer', after: 'admin' }],
        },
      }),
    ).toBe('Olga changed the role of member “vic@example.test”: role from “viewer” to “admin”.');
    expect(
      auditPredicate({
        event: 'members.inviteMember',
        resources: { invitationId: 'inv_1' },
        details: { names: { invitationId: 'new@example.test' }, changes: [] },
      }),
    ).toBe('sent invitation “new@example.test”');
    expect(
      auditPredicate({ event: 'members.createPasswordReset', resources: { userId: 'usr_1' }, details: null }),
    ).toBe('issued a password reset link for member usr_1');
  });
});

describe('auditActorName', () => {
  const rootKeyNames = new Map([['rk_1', 'deploy bot']]);

  it('names a person by their email, a root key by its name or id, and the CLI', () => {
    const person = { type: 'person', userId: 'usr_1', email: 'ada@example.test' } as const;
    expect(auditActorName(person, rootKeyNames)).toBe('ada@example.test');
    expect(auditActorName({ type: 'rootKey', rootKeyId: 'rk_1' }, rootKeyNames)).toBe('deploy bot');
    expect(auditActorName({ type: 'rootKey', rootKeyId: 'rk_2' }, rootKeyNames)).toBe('rk_2');
    expect(auditActorName({ type: 'cli' }, rootKeyNames)).toBe('The CLI');
    expect(auditActorName({ type: 'portalEndUser', externalId: 'acme-7', portalId: 'pc_1' }, rootKeyNames)).toBe(
      'Portal customer acme-7',
    );
  });

  it('names a portal customer by their externalId', () => {
    const customer = { type: 'portalEndUser', externalId: 'cus_7', portalId: 'pc_1' } as const;
    expect(auditActorName(customer, rootKeyNames)).toBe('Portal customer cus_7');
    expect(auditActorId(customer)).toBe('pc_1');
  });

  it('starts the sentence with the person who made the change', () => {
    const person = { type: 'person', userId: 'usr_1', email: 'ada@example.test' } as const;
    const facts = { event: 'apis.createApi', resources: { apiId: 'api_1' }, details: { names: { apiId: 'billing' } } };
    expect(auditSentence(auditActorName(person, rootKeyNames), facts)).toBe('ada@example.test created API “billing”.');
  });

  it('gives the id behind the name: the person’s or the root key’s, none for the CLI', () => {
    expect(auditActorId({ type: 'person', userId: 'usr_1', email: 'ada@example.test' })).toBe('usr_1');
    expect(auditActorId({ type: 'rootKey', rootKeyId: 'rk_1' })).toBe('rk_1');
    expect(auditActorId({ type: 'cli' })).toBeUndefined();
    expect(auditActorId({ type: 'portalEndUser', externalId: 'acme-7', portalId: 'pc_1' })).toBe('pc_1');
  });
});

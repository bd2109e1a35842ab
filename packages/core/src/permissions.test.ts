import { describe, expect, it } from 'vitest';
import {
  allRootKeyPermissions,
  isGrantablePermission,
  isGranted,
  isGrantedOnAny,
  missingPermissions,
  type PermissionTuple,
  parsePermission,
  permissionsNotHeld,
} from './permissions.ts';

const required: PermissionTuple = { resourceType: 'api', resourceId: 'api_123', action: 'create_key' };

describe('isGranted', () => {
  it.each([['api.*.create_key'], ['apis.*.create_key'], ['api.api_123.create_key'], ['apis.api_123.create_key']])(
    '%s covers api.api_123.create_key',
    (grant) => {
      expect(isGranted([grant], required)).toBe(true);
    },
  );

  it.each([
    ['api.api_456.create_key'],
    ['api.*.read_key'],
    ['ratelimit.*.create_key'],
    ['api.api_123'],
    ['api.api_1*.create_key'],
    ['*.*.*'],
    [''],
  ])('%s does not cover api.api_123.create_key', (grant) => {
    expect(isGranted([grant], required)).toBe(false);
  });

  it('answers for each grants array by its own grants, also when asked again', () => {
    const narrow = ['api.api_456.create_key'];
    const wide = ['apis.*.create_key'];
    expect(isGranted(narrow, required)).toBe(false);
    expect(isGranted(wide, required)).toBe(true);
    expect(isGranted(narrow, required)).toBe(false);
    expect(isGranted(wide, { ...required, action: 'read_key' })).toBe(false);
  });

  it('needs a wildcard grant for a check on every instance', () => {
    const anyApi: PermissionTuple = { resourceType: 'api', resourceId: '*', action: 'create_api' };
    expect(isGranted(['api.api_123.create_api'], anyApi)).toBe(false);
    expect(isGranted(['api.*.create_api'], anyApi)).toBe(true);
  });
});

describe('isGrantedOnAny', () => {
  it('answers whether some grant allows the action on a resource of the type, named or all', () => {
    expect(isGrantedOnAny(['api.api_123.verify_key'], 'api', 'verify_key')).toBe(true);
    expect(isGrantedOnAny(['apis.*.verify_key'], 'api', 'verify_key')).toBe(true);
    expect(isGrantedOnAny(['api.*.read_key', 'ratelimit.*.verify_key'], 'api', 'verify_key')).toBe(false);
    expect(isGrantedOnAny(['api.api_123'], 'api', 'verify_key')).toBe(false);
    expect(isGrantedOnAny([], 'api', 'verify_key')).toBe(false);
  });
});

describe('missingPermissions', () => {
  it('lists the uncovered ones in the canonical spelling', () => {
    const encrypt = { ...required, action: 'encrypt_key' };
    expect(missingPermissions(['apis.*.create_key'], [required, encrypt])).toEqual(['api.api_123.encrypt_key']);
  });
});

describe('permissionsNotHeld', () => {
  it("lists a root key's permissions the grants do not cover, each once, in the canonical spelling", () => {
    const grants = ['api.*.read_api', 'api.api_123.read_key'];
    expect(permissionsNotHeld(grants, ['apis.*.read_api', 'api.api_123.read_key'])).toEqual([]);
    expect(
      permissionsNotHeld(grants, ['api.*.read_key', 'apis.*.read_key', 'api.api_123.read_key', 'api.*.delete_api']),
    ).toEqual(['api.*.read_key', 'api.*.delete_api']);
  });

  it('needs a wildcard grant to hold a wildcard permission', () => {
    expect(permissionsNotHeld(['api.api_123.create_key'], ['api.*.create_key'])).toEqual(['api.*.create_key']);
  });

  it('counts text that is not a permission as held only by the same text', () => {
    expect(permissionsNotHeld(['api.*.read_api'], ['not a permission'])).toEqual(['not a permission']);
    expect(permissionsNotHeld(['not a permission'], ['not a permission'])).toEqual([]);
  });
});

describe('implied actions', () => {
  it('reads root keys and the audit log with workspace.*.manage_root_keys, as before those reads were actions', () => {
    for (const action of ['read_root_keys', 'read_audit_log', 'manage_root_keys']) {
      expect(isGranted(['workspace.*.manage_root_keys'], { resourceType: 'workspace', resourceId: '*', action })).toBe(
        true,
      );
    }
    expect(
      isGranted(['workspace.*.manage_root_keys'], {
        resourceType: 'workspace',
        resourceId: '*',
        action: 'read_members',
      }),
    ).toBe(false);
  });

  it('reads the people with workspace.*.manage_members', () => {
    expect(
      isGranted(['workspace.*.manage_members'], { resourceType: 'workspace', resourceId: '*', action: 'read_members' }),
    ).toBe(true);
  });

  it('implies nothing the other way: reading is not managing', () => {
    const readers = ['workspace.*.read_root_keys', 'workspace.*.read_audit_log', 'workspace.*.read_members'];
    expect(permissionsNotHeld(readers, ['workspace.*.manage_root_keys', 'workspace.*.manage_members'])).toEqual([
      'workspace.*.manage_root_keys',
      'workspace.*.manage_members',
    ]);
  });

  it('counts a root key holding every permission as it was before the reads existed as holding them all', () => {
    const before = allRootKeyPermissions().filter(
      (permission) => !/\.read_(root_keys|audit_log|members)$/.test(permission),
    );
    expect(permissionsNotHeld(before, allRootKeyPermissions())).toEqual([]);
  });
});

describe('parsePermission and the catalogue', () => {
  it('normalises apis to api', () => {
    expect(parsePermission('apis.*.read_api')).toEqual({ resourceType: 'api', resourceId: '*', action: 'read_api' });
  });

  it('normalises webhooks to webhook', () => {
    expect(parsePermission('webhooks.whep_1.read_endpoint')).toEqual({
      resourceType: 'webhook',
      resourceId: 'whep_1',
      action: 'read_endpoint',
    });
  });

  it('knows the actions of each resource type', () => {
    expect(isGrantablePermission('api.*.create_key')).toBe(true);
    expect(isGrantablePermission('rbac.*.create_role')).toBe(true);
    expect(isGrantablePermission('webhook.*.create_endpoint')).toBe(true);
    expect(isGrantablePermission('webhook.whep_123.update_endpoint')).toBe(true);
    expect(isGrantablePermission('webhook.*.create_key')).toBe(false);
    expect(isGrantablePermission('api.*.fly')).toBe(false);
    expect(isGrantablePermission('nope.*.read')).toBe(false);
  });

  it('gives the bootstrap key every action on every resource type', () => {
    const all = allRootKeyPermissions();
    expect(all).toContain('api.*.create_key');
    expect(all).toContain('workspace.*.manage_root_keys');
    expect(all).toContain('workspace.*.manage_members');
    expect(all).toContain('workspace.*.read_root_keys');
    expect(all).toContain('workspace.*.read_audit_log');
    expect(all).toContain('workspace.*.read_members');
    expect(all).toContain('webhook.*.delete_endpoint');
    expect(all.every(isGrantablePermission)).toBe(true);
  });
});

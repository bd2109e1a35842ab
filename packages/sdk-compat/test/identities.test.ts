import { Unkey } from '@unkey/api';
import {
  APIError,
  BadRequestErrorResponse,
  ConflictErrorResponse,
  ForbiddenErrorResponse,
  NotFoundErrorResponse,
  UnauthorizedErrorResponse,
} from '@unkey/api/models/errors';
import { beforeAll, describe, expect, it } from 'vitest';
import { everyItem, expectWorkspaceRateLimited, problemType, rejection } from './errors.ts';
import { useKeyplane } from './keyplane.ts';

// `unkey.identities.*` of @unkey/api against a Keyplane server.

const keyplane = useKeyplane();
let unkey: Unkey;

beforeAll(() => {
  unkey = keyplane.unkey;
});

describe('200', () => {
  it('createIdentity, getIdentity by externalId or id, updateIdentity', async () => {
    const created = await unkey.identities.createIdentity({
      externalId: 'user_1',
      meta: { tier: 'gold' },
      ratelimits: [{ name: 'requests', limit: 10, duration: 60_000, autoApply: true }],
    });
    expect(created.data.identityId).toMatch(/^id_/);

    const byExternalId = await unkey.identities.getIdentity({ identity: 'user_1' });
    expect(byExternalId.data).toMatchObject({
      id: created.data.identityId,
      externalId: 'user_1',
      meta: { tier: 'gold' },
      ratelimits: [{ id: expect.any(String), name: 'requests', limit: 10, duration: 60_000, autoApply: true }],
    });
    const byId = await unkey.identities.getIdentity({ identity: created.data.identityId });
    expect(byId.data.externalId).toBe('user_1');

    const updated = await unkey.identities.updateIdentity({
      identity: 'user_1',
      meta: { tier: 'silver' },
      ratelimits: [],
    });
    expect(updated.data).toMatchObject({ externalId: 'user_1', meta: { tier: 'silver' } });
    expect(updated.data.ratelimits ?? []).toEqual([]);
  });

  it('listIdentities pages with the SDK’s cursor and searches', async () => {
    for (const externalId of ['list_a', 'list_b', 'list_c']) await unkey.identities.createIdentity({ externalId });
    const first = await unkey.identities.listIdentities({ limit: 2, search: 'list_' });
    expect(first.result.pagination).toEqual({ cursor: expect.any(String), hasMore: true });
    const listed = await everyItem(first);
    expect(listed.pageCount).toBe(2);
    expect(listed.items.map((identity) => identity.externalId)).toEqual(['list_a', 'list_b', 'list_c']);
  });

  it('deleteIdentity answers, and the identity is gone', async () => {
    await unkey.identities.createIdentity({ externalId: 'to_delete' });
    const deleted = await unkey.identities.deleteIdentity({ identity: 'to_delete' });
    expect(deleted.meta.requestId).toEqual(expect.any(String));
    await rejection(unkey.identities.getIdentity({ identity: 'to_delete' }), NotFoundErrorResponse, 404);
  });
});

describe('400', () => {
  it('an empty externalId is a BadRequestErrorResponse naming the field', async () => {
    const error = await rejection(unkey.identities.createIdentity({ externalId: '' }), BadRequestErrorResponse, 400);
    expect(error.error.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ location: 'body.externalId' })]),
    );
  });
});

describe('401', () => {
  it('an unknown root key is an UnauthorizedErrorResponse', async () => {
    const stranger = new Unkey({ serverURL: keyplane.url, rootKey: 'kproot_unknown' });
    await rejection(stranger.identities.listIdentities({}), UnauthorizedErrorResponse, 401);
  });
});

describe('403', () => {
  it('a root key without create_identity is a ForbiddenErrorResponse naming it', async () => {
    const reader = await keyplane.unkeyWith(['identity.*.read_identity']);
    const error = await rejection(
      reader.identities.createIdentity({ externalId: 'denied' }),
      ForbiddenErrorResponse,
      403,
    );
    expect(error.error.detail).toContain('identity.*.create_identity');
  });
});

describe('404', () => {
  it('an identity that does not exist is a NotFoundErrorResponse', async () => {
    const error = await rejection(unkey.identities.getIdentity({ identity: 'nobody' }), NotFoundErrorResponse, 404);
    expect(problemType(error)).toBe('service/data/identity_not_found');
    await rejection(unkey.identities.updateIdentity({ identity: 'nobody', meta: {} }), NotFoundErrorResponse, 404);
  });

  it('deleteIdentity of an identity that does not exist: the SDK types its errors only as problem+json, so it is its APIError', async () => {
    const error = await rejection(unkey.identities.deleteIdentity({ identity: 'nobody' }), APIError, 404);
    expect(JSON.parse(error.body)).toMatchObject({
      error: { status: 404, type: expect.stringContaining('identity_not_found') },
    });
  });
});

describe('409', () => {
  it('a second identity with the same externalId is a ConflictErrorResponse', async () => {
    await unkey.identities.createIdentity({ externalId: 'twice' });
    const error = await rejection(unkey.identities.createIdentity({ externalId: 'twice' }), ConflictErrorResponse, 409);
    expect(problemType(error)).toBe('service/data/identity_already_exists');
  });
});

describe('429', () => {
  it('a workspace past its API rate limit gets a 429, as the SDK’s TooManyRequestsErrorResponse', async () => {
    const limited = await keyplane.unkeyOfRateLimitedWorkspace();
    await expectWorkspaceRateLimited(limited.identities.listIdentities({}));
  });
});

import { Unkey } from '@unkey/api';
import {
  BadRequestErrorResponse,
  ForbiddenErrorResponse,
  NotFoundErrorResponse,
  PreconditionFailedErrorResponse,
  UnauthorizedErrorResponse,
} from '@unkey/api/models/errors';
import { beforeAll, describe, expect, it } from 'vitest';
import { everyItem, expectWorkspaceRateLimited, problemType, rejection } from './errors.ts';
import { useKeyplane } from './keyplane.ts';

// `unkey.apis.*` of @unkey/api against a Keyplane server.

const keyplane = useKeyplane();
let unkey: Unkey;

beforeAll(() => {
  unkey = keyplane.unkey;
});

describe('200', () => {
  it('createApi, getApi and deleteApi', async () => {
    const { data } = await unkey.apis.createApi({ name: 'sdk-apis' });
    expect(data.apiId).toMatch(/^api_/);
    expect((await unkey.apis.getApi({ apiId: data.apiId })).data).toEqual({ id: data.apiId, name: 'sdk-apis' });
    expect((await unkey.apis.deleteApi({ apiId: data.apiId })).data).toEqual({});
    await rejection(unkey.apis.getApi({ apiId: data.apiId }), NotFoundErrorResponse, 404);
  });

  it('listKeys pages through the keys with the SDK’s cursor, and decrypts recoverable ones', async () => {
    const { apiId } = (await unkey.apis.createApi({ name: 'sdk-list' })).data;
    expect((await keyplane.post('/v2/apis.updateApi', { apiId, encryption: { enabled: true } })).status).toBe(200);
    const created = [];
    for (const name of ['a', 'b', 'c']) {
      created.push((await unkey.keys.createKey({ apiId, name, externalId: 'owner', recoverable: true })).data);
    }
    const first = await unkey.apis.listKeys({ apiId, limit: 2 });
    expect(first.result.pagination).toEqual({ cursor: expect.any(String), hasMore: true });
    const listed = await everyItem(first);
    expect(listed.pageCount).toBe(2);
    expect(listed.items.map((key) => key.keyId)).toEqual(created.map((key) => key.keyId));

    const decrypted = await unkey.apis.listKeys({
      apiId,
      externalId: 'owner',
      decrypt: true,
      revalidateKeysCache: true,
    });
    expect(decrypted.result.pagination).toEqual({ hasMore: false });
    expect(decrypted.result.data.map((key) => key.plaintext)).toEqual(created.map((key) => key.key));
  });
});

describe('400', () => {
  it('a name too short is a BadRequestErrorResponse naming the field', async () => {
    const error = await rejection(unkey.apis.createApi({ name: 'ab' }), BadRequestErrorResponse, 400);
    expect(error.error.errors).toEqual([expect.objectContaining({ location: 'body.name' })]);
  });
});

describe('401', () => {
  it('a request without a root key is an UnauthorizedErrorResponse', async () => {
    const anonymous = new Unkey({ serverURL: keyplane.url });
    await rejection(anonymous.apis.createApi({ name: 'sdk-anonymous' }), UnauthorizedErrorResponse, 401);
  });
});

describe('403', () => {
  it('a root key without create_api is a ForbiddenErrorResponse naming it', async () => {
    const reader = await keyplane.unkeyWith(['api.*.read_api']);
    const error = await rejection(reader.apis.createApi({ name: 'sdk-denied' }), ForbiddenErrorResponse, 403);
    expect(problemType(error)).toBe('service/authorization/forbidden');
    expect(error.error.detail).toContain('api.*.create_api');
  });
});

describe('404', () => {
  it('an API that does not exist is a NotFoundErrorResponse', async () => {
    const error = await rejection(unkey.apis.listKeys({ apiId: 'api_doesnotexist' }), NotFoundErrorResponse, 404);
    expect(problemType(error)).toBe('service/data/api_not_found');
    await rejection(unkey.apis.deleteApi({ apiId: 'api_doesnotexist' }), NotFoundErrorResponse, 404);
  });
});

describe('412', () => {
  it('deleting an API with delete protection is a PreconditionFailedErrorResponse', async () => {
    const { apiId } = (await unkey.apis.createApi({ name: 'sdk-protected' })).data;
    expect((await keyplane.post('/v2/apis.updateApi', { apiId, deleteProtection: true })).status).toBe(200);
    const error = await rejection(unkey.apis.deleteApi({ apiId }), PreconditionFailedErrorResponse, 412);
    expect(problemType(error)).toBe('service/application/protected_resource');
  });
});

describe('429', () => {
  it('a workspace past its API rate limit gets a 429, as the SDK’s TooManyRequestsErrorResponse', async () => {
    const limited = await keyplane.unkeyOfRateLimitedWorkspace();
    await expectWorkspaceRateLimited(limited.apis.createApi({ name: 'sdk-limited' }));
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi } from '../harness.ts';
import type { InputOf } from '../procedures.ts';

const { api, workspace } = useApiWithWorkspace();

const getApi = (apiId: string, rootKey = workspace.rootKey) => api.call('apis.getApi', { apiId }, rootKey);

describe('apis.createApi', () => {
  describe('200', () => {
    it('creates an API with default settings', async () => {
      const reply = await api.call('apis.createApi', { name: 'payments' }, workspace.rootKey);
      expect(reply.status).toBe(200);
      expect(reply.body.data.apiId).toMatch(/^api_[A-Za-z0-9]+$/);
      expect((await getApi(reply.body.data.apiId)).body.data).toEqual({
        id: reply.body.data.apiId,
        name: 'payments',
        keyAuth: { enabled: true },
        encryption: { enabled: false },
        defaultPrefix: null,
        defaultBytes: null,
        deleteProtection: false,
        createdAt: expect.any(Number),
      });
    });

    it('allows two APIs with the same name', async () => {
      const first = await api.post('apis.createApi', { name: 'twin' }, workspace.rootKey);
      const second = await api.post('apis.createApi', { name: 'twin' }, workspace.rootKey);
      expect([first.status, second.status]).toEqual([200, 200]);
    });
  });

  describe('400', () => {
    it.each([
      ['missing', {}],
      ['too short', { name: 'ab' }],
      ['too long', { name: 'a'.repeat(256) }],
      ['not a string', { name: 42 }],
      ['holding U+0000, which PostgreSQL text cannot store', { name: 'my\u0000api' }],
    ])('rejects a name that is %s', async (_, body) => {
      const reply = await api.post('apis.createApi', body, workspace.rootKey);
      expect(reply.status).toBe(400);
      expect(reply.body.error.errors?.[0]?.location).toBe('body.name');
    });
  });

  describe('403', () => {
    it('without api.*.create_api', async () => {
      const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
      const reply = await api.post('apis.createApi', { name: 'nope' }, rootKey);
      expectMissingPermissions(reply, 'api.*.create_api');
    });
  });
});

describe('apis.getApi', () => {
  let apiId: string;
  beforeAll(async () => {
    apiId = await createTestApi(api, workspace.rootKey);
  });

  describe('200', () => {
    it('returns the API', async () => {
      const reply = await getApi(apiId);
      expect(reply.status).toBe(200);
      expect(reply.body.data.id).toBe(apiId);
    });
  });

  describe('400', () => {
    it('rejects a malformed apiId', async () => {
      expect((await getApi('no')).status).toBe(400);
    });
  });

  describe('403', () => {
    it('without read_api, before looking anything up', async () => {
      const { rootKey } = await workspace.rootKeyWith(['api.*.create_key']);
      expect((await getApi(apiId, rootKey)).status).toBe(403);
      expect((await getApi('api_doesnotexist', rootKey)).status).toBe(403);
    });
  });

  describe('404', () => {
    it('for an unknown API', async () => {
      expectProblem(await getApi('api_doesnotexist'), 404, 'service/data/api_not_found');
    });

    it("for another workspace's API", async () => {
      const other = await api.workspace();
      expect((await getApi(apiId, other.rootKey)).status).toBe(404);
    });
  });
});

describe('apis.updateApi', () => {
  let apiId: string;
  beforeAll(async () => {
    apiId = await createTestApi(api, workspace.rootKey);
  });
  const updateApi = (settings: Omit<InputOf<'apis.updateApi'>, 'apiId'>, rootKey = workspace.rootKey) =>
    api.call('apis.updateApi', { apiId, ...settings }, rootKey);

  describe('200', () => {
    it('changes every setting and answers data: {}', async () => {
      const settings = {
        name: 'renamed',
        keyAuth: { enabled: false },
        encryption: { enabled: true },
        defaultPrefix: 'acme',
        defaultBytes: 32,
        deleteProtection: true,
      };
      const reply = await updateApi(settings);
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual({});
      expect((await getApi(apiId)).body.data).toMatchObject(settings);
    });

    it('leaves absent fields alone and clears defaults with null', async () => {
      await updateApi({ defaultPrefix: 'keep', defaultBytes: 20, deleteProtection: true });
      await updateApi({ defaultBytes: null });
      expect((await getApi(apiId)).body.data).toMatchObject({
        defaultPrefix: 'keep',
        defaultBytes: null,
        deleteProtection: true,
      });
    });
  });

  describe('400', () => {
    it.each([
      ['defaultPrefix', 'p'.repeat(17)],
      ['defaultPrefix', 'bad-prefix'],
      ['defaultBytes', 15],
      ['defaultBytes', 256],
      ['name', 'ab'],
      ['name', 'my\u0000api'],
      ['keyAuth', true],
      ['encryption', { enabled: 'yes' }],
      ['deleteProtection', 'on'],
      ['color', 'red'],
    ])('rejects %s = %j', async (field, value) => {
      const reply = await updateApi({ [field]: value });
      expect(reply.status).toBe(400);
      expect(reply.body.error.errors?.[0]?.location).toMatch(new RegExp(`^body\\.${field}`));
    });
  });

  describe('403', () => {
    it('without update_api, naming it', async () => {
      const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
      const reply = await updateApi({ name: 'nope' }, rootKey);
      expectMissingPermissions(reply, `api.${apiId}.update_api`);
    });

    it('with update_api scoped to this API', async () => {
      const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.update_api`]);
      expect((await updateApi({ name: 'scoped' }, rootKey)).status).toBe(200);
    });
  });

  describe('404', () => {
    it('for an unknown API', async () => {
      expect((await api.post('apis.updateApi', { apiId: 'api_nope', name: 'x-y-z' }, workspace.rootKey)).status).toBe(
        404,
      );
    });

    it("for another workspace's API, changing nothing", async () => {
      const other = await api.workspace();
      const reply = await updateApi({ name: 'hijacked' }, other.rootKey);
      expect(reply.status).toBe(404);
      expect((await getApi(apiId)).body.data.name).not.toBe('hijacked');
    });
  });
});

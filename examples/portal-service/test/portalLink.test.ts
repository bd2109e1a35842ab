import type { AddressInfo } from 'node:net';
import { createKeyplaneClient } from '@keyplane/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapRootKey, type ServerProcess, startServerProcess } from '../../../apps/api/test/serverProcess.ts';
import { createPortalService } from '../src/portalLink.ts';

let server: ServerProcess;
let rootKey: string;

beforeAll(async () => {
  server = await startServerProcess();
  rootKey = bootstrapRootKey(server);
});

afterAll(async () => {
  await server?.stop();
});

describe('opening the portal for the signed-in user', () => {
  it('redirects them to their portal session, whose code opens their keys and nobody else’s', async () => {
    const keyplane = createKeyplaneClient({ baseUrl: server.url, rootKey });
    const { apiId } = await keyplane.apis.createApi.mutate({ name: 'product' });
    await keyplane.keys.createKey.mutate({ apiId, externalId: 'someone_else' });
    const { portalId } = await keyplane.portal.createPortal.mutate({ apiId, displayName: 'Product' });
    const service = createPortalService({
      keyplane,
      portalId,
      returnUrl: 'https://product.example.com/settings',
      signedInUser: (request) => request.headers['x-user-id'] as string | undefined,
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    try {
      const at = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
      expect((await fetch(`${at}/settings/api-keys`, { redirect: 'manual' })).status).toBe(401);
      const opened = await fetch(`${at}/settings/api-keys`, { redirect: 'manual', headers: { 'x-user-id': 'user_7' } });
      expect(opened.status).toBe(303);
      const location = new URL(opened.headers.get('location') ?? '');
      expect(location.pathname).toBe('/portal/');
      const code = location.searchParams.get('code');
      expect(code).toMatch(/^pst_/);

      // What the portal page then does, here at /v2: the code for the access token, then the user's keys.
      const post = (procedure: string, body: unknown, token?: string) =>
        fetch(`${server.url}/v2/${procedure}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        }).then(async (response) => ({
          status: response.status,
          body: (await response.json()) as {
            data: { accessToken?: string; name?: string }[] & { accessToken: string };
          },
        }));
      const exchanged = await post('portal.exchangeCode', { code });
      expect(exchanged.status).toBe(200);
      const token = exchanged.body.data.accessToken;
      expect((await post('portal.listKeys', {}, token)).body.data).toEqual([]);
      expect((await post('portal.createKey', { name: 'ci' }, token)).status).toBe(200);
      const listed = await post('portal.listKeys', {}, token);
      expect(listed.body.data.map((key) => key.name)).toEqual(['ci']);
      const { data: sessions } = await keyplane.portal.listSessions.query({ portal: portalId });
      expect(sessions.map((session) => session.externalId)).toEqual(['user_7']);
    } finally {
      await new Promise((resolve) => service.close(resolve));
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapRootKey, type ServerProcess, startServerProcess } from '../../../apps/api/test/serverProcess.ts';
import { createKeyplaneClient, KeyplaneError } from '../src/index.ts';

let server: ServerProcess;
let rootKey: string;

beforeAll(async () => {
  server = await startServerProcess();
  rootKey = bootstrapRootKey(server);
});

afterAll(async () => {
  await server?.stop();
});

/** A fetch that records every request it sends and the request id of each answer. */
function recordingFetch() {
  const requests: { url: string; requestId: string | null }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    requests.push({ url: String(input), requestId: response.headers.get('x-request-id') });
    return response;
  };
  return { fetch, requests };
}

async function failureOf(call: Promise<unknown>): Promise<KeyplaneError> {
  const caught = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(caught instanceof KeyplaneError)) throw new Error(`expected a KeyplaneError, got ${String(caught)}`);
  return caught;
}

describe('batching', () => {
  it('sends the calls made together as one request', async () => {
    const { fetch, requests } = recordingFetch();
    const keyplane = createKeyplaneClient({ baseUrl: server.url, rootKey, fetch });
    const { apiId } = await keyplane.apis.createApi.mutate({ name: 'batched' });
    requests.length = 0;
    const [api, { data: rootKeys }] = await Promise.all([
      keyplane.apis.getApi.query({ apiId }),
      keyplane.rootKeys.listRootKeys.query(),
    ]);
    expect(api.name).toBe('batched');
    expect(rootKeys.map((rootKey) => rootKey.name)).toContain('bootstrap');
    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toMatch(/\/trpc\/apis\.getApi,rootKeys\.listRootKeys\?batch=1$/);
  });

  it('answers each call of a batch on its own: one failing does not fail the other', async () => {
    const { fetch, requests } = recordingFetch();
    const keyplane = createKeyplaneClient({ baseUrl: server.url, rootKey, fetch });
    const [missing, listed] = await Promise.allSettled([
      keyplane.apis.getApi.query({ apiId: 'api_doesnotexist' }),
      keyplane.rootKeys.listRootKeys.query(),
    ]);
    expect(requests).toHaveLength(1);
    expect(listed.status).toBe('fulfilled');
    expect(missing.status === 'rejected' && missing.reason).toBeInstanceOf(KeyplaneError);
  });
});

describe('a failed call rejects with a KeyplaneError', () => {
  describe('401', () => {
    it('carries the status, the public type and the request id of the answer', async () => {
      const { fetch, requests } = recordingFetch();
      const keyplane = createKeyplaneClient({ baseUrl: server.url, rootKey: 'kproot_unknown', fetch });
      const error = await failureOf(keyplane.apis.createApi.mutate({ name: 'nope' }));
      expect(error).toMatchObject({
        name: 'KeyplaneError',
        status: 401,
        type: 'service/authentication/unauthorized',
        requestId: requests[0]?.requestId,
      });
      expect(error.requestId).toMatch(/^req_/);
    });
  });

  describe('404', () => {
    it('names the missing API', async () => {
      const keyplane = createKeyplaneClient({ baseUrl: server.url, rootKey });
      const error = await failureOf(keyplane.apis.getApi.query({ apiId: 'api_doesnotexist' }));
      expect(error).toMatchObject({ status: 404, type: 'service/data/api_not_found' });
      expect(error.message).toContain('api_doesnotexist');
      expect(error.requestId).toMatch(/^req_/);
    });
  });

  describe('400', () => {
    it('reports an input the procedure refuses', async () => {
      const keyplane = createKeyplaneClient({ baseUrl: server.url, rootKey });
      const error = await failureOf(keyplane.apis.createApi.mutate({ name: '' }));
      expect(error).toMatchObject({ status: 400, type: 'service/application/invalid_input' });
      expect(error.requestId).toMatch(/^req_/);
    });
  });

  describe('no answer', () => {
    it('has status 0 and no request id when the server cannot be reached', async () => {
      const keyplane = createKeyplaneClient({ baseUrl: 'http://127.0.0.1:9', rootKey });
      const error = await failureOf(keyplane.rootKeys.listRootKeys.query());
      expect(error).toMatchObject({ status: 0, type: null, requestId: undefined });
    });
  });
});

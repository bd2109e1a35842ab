import { createKeyplaneClient, TRPCClientError } from '@keyplane/client';
import { hashKey } from '@keyplane/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { storedKey } from './dbInspect.ts';
import { useWorkspace } from './fixtures.ts';
import { useApi } from './harness.ts';

const api = useApi();
let baseUrl: string;
const workspace = useWorkspace(api);

beforeAll(async () => {
  baseUrl = api.url;
});

describe('the typed tRPC client', () => {
  it('calls procedures natively with inferred types', async () => {
    const client = createKeyplaneClient({ baseUrl, rootKey: workspace.rootKey });
    const { apiId } = await client.apis.createApi.mutate({ name: 'from-client' });
    const settings = await client.apis.getApi.query({ apiId });
    expect(settings.keyAuth.enabled).toBe(true);
    const { keyId, key } = await client.keys.createKey.mutate({ apiId, prefix: 'int', name: 'internal' });
    expect((await storedKey(api.em(), keyId))?.hash).toBe(hashKey(key));
  });

  it('reaches internal procedures that /v2 does not serve', async () => {
    const client = createKeyplaneClient({ baseUrl, rootKey: workspace.rootKey });
    const { data: rootKeys } = await client.rootKeys.listRootKeys.query();
    expect(rootKeys.map((rootKey) => rootKey.name)).toContain('bootstrap');
    expect(JSON.stringify(rootKeys)).not.toContain(workspace.rootKey);
  });

  it('authenticates the same way as /v2', async () => {
    const client = createKeyplaneClient({ baseUrl, rootKey: 'kproot_unknown' });
    const error = await client.apis.createApi.mutate({ name: 'nope' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<never>).data).toMatchObject({
      code: 'UNAUTHORIZED',
      httpStatus: 401,
      type: 'service/authentication/unauthorized',
    });
  });

  it('reports missing permissions as FORBIDDEN with the contract message', async () => {
    const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
    const client = createKeyplaneClient({ baseUrl, rootKey });
    const error = await client.apis.createApi.mutate({ name: 'nope' }).catch((caught: unknown) => caught);
    expect((error as TRPCClientError<never>).message).toBe("Missing permission: 'api.*.create_api'.");
    expect((error as TRPCClientError<never>).data).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
  });
});

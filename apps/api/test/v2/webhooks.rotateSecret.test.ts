import { describe, expect, it } from 'vitest';
import { useApiWithWorkspace } from '../fixtures.ts';
import {
  auditEntries,
  createTestEndpoint,
  endpointProcedure,
  expectEndpointNotFound,
  storedEndpoint,
} from '../webhooks.ts';

const { api, workspace } = useApiWithWorkspace();

const rotateSecret = endpointProcedure(api, workspace, 'webhooks.rotateSecret', async ({ endpointId, secret }) =>
  expect((await storedEndpoint(api.em(), endpointId))?.secret).toBe(secret),
);

describe('200', () => {
  it('replaces the signing secret and answers the new one, leaving the rest as it was', async () => {
    const { endpointId, secret } = await createTestEndpoint(api, workspace.rootKey, { description: 'kept' });
    const reply = await rotateSecret(endpointId);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.data)).toEqual(['secret']);
    expect(reply.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(reply.body.data.secret).not.toBe(secret);
    expect(await storedEndpoint(api.em(), endpointId)).toMatchObject({
      secret: reply.body.data.secret,
      description: 'kept',
      enabled: true,
    });
  });

  it('keeps the secret out of the audit log, which names the endpoint alone', async () => {
    const { workspaceId, rootKey } = await api.workspace();
    const { endpointId } = await createTestEndpoint(api, rootKey);
    const { secret } = (await rotateSecret(endpointId, rootKey)).body.data;
    const entries = await auditEntries(api.em(), workspaceId, 'webhooks.rotateSecret');
    expect(entries).toEqual([{ resources: { endpointId } }]);
    expect(JSON.stringify(entries)).not.toContain(secret);
  });
});

describe('400', () => {
  rotateSecret.itRejectsInput('a.b', { endpointId: 'whep_x', secret: 'whsec_mine' });
});

describe('403', () => {
  rotateSecret.itNeedsPermission('keeping the secret', ['webhook.*.read_endpoint', 'webhook.*.create_endpoint']);
});

describe('404', () => {
  it('for an endpoint the workspace does not have', async () => {
    expectEndpointNotFound(await rotateSecret('whep_missing'), 'whep_missing');
  });
});

describe('cross-workspace isolation', () => {
  rotateSecret.itHidesOtherWorkspaces('keeps its secret');
});

import { createKeyplaneClient } from '@keyplane/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapRootKey, type ServerProcess, startServerProcess } from '../../../apps/api/test/serverProcess.ts';
import { onboardCustomer } from '../src/onboarding.ts';

let server: ServerProcess;
let rootKey: string;

beforeAll(async () => {
  server = await startServerProcess();
  rootKey = bootstrapRootKey(server);
});

afterAll(async () => {
  await server?.stop();
});

describe('onboarding a customer', () => {
  it('provisions an API and a key tied to the customer, which verifies until it is revoked', async () => {
    const keyplane = createKeyplaneClient({ baseUrl: server.url, rootKey });
    const report = await onboardCustomer(keyplane, { id: 'cus_42', name: 'Example Ltd', plan: 'pro' });

    expect(report.stored).toMatchObject({
      keyId: report.keyId,
      name: 'Example Ltd',
      enabled: true,
      meta: { plan: 'pro' },
      identity: { externalId: 'cus_42' },
    });
    expect(report.stored.start).toMatch(/^pro_/);
    expect(report.verifiedBeforeRevocation).toMatchObject({ valid: true, code: 'VALID', keyId: report.keyId });
    expect(report.verifiedAfterRevocation).toMatchObject({ valid: false, code: 'NOT_FOUND' });
    const { data: liveKeys } = await keyplane.apis.listKeys.query({ apiId: report.apiId });
    expect(liveKeys).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem, itRejectsEach } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { createTestApi } from '../harness.ts';

const { api, workspace } = useApiWithWorkspace();

describe('200', () => {
  it('creates a portal with its branding and key policy, as getPortal answers it', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const keyPolicy = {
      prefix: 'acme',
      byteLength: 24,
      credits: { remaining: 1000, refill: { interval: 'monthly', amount: 1000, refillDay: 1 } },
      ratelimits: [{ name: 'requests', limit: 10, duration: 1000 }],
      maxLifetimeMs: 86_400_000,
      maxKeysPerCustomer: 3,
    };
    const reply = await api.call(
      'portal.createPortal',
      {
        apiId,
        displayName: 'Acme Cloud',
        slug: 'acme-cloud',
        logoUrl: 'https://cdn.example.com/logo.svg',
        primaryColor: '#1A2B3C',
        supportUrl: 'https://example.com/support',
        keyPolicy,
      },
      workspace.rootKey,
    );
    expect(reply.status).toBe(200);
    const { portalId } = reply.body.data;
    expect(portalId).toMatch(/^pc_/);
    const got = await api.call('portal.getPortal', { portalId }, workspace.rootKey);
    expect(got.body.data).toMatchObject({
      portalId,
      apiId,
      displayName: 'Acme Cloud',
      slug: 'acme-cloud',
      primaryColor: '#1a2b3c',
      enabled: true,
      keyPolicy: {
        ...keyPolicy,
        credits: { remaining: 1000, refill: { interval: 'monthly', amount: 1000, refillDay: 1 } },
        ratelimits: [{ name: 'requests', limit: 10, duration: 1000, autoApply: false }],
      },
    });
  });

  it('makes a slug from the display name when none is given', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { body } = await api.call('portal.createPortal', { apiId, displayName: 'My Portal!' }, workspace.rootKey);
    const got = await api.call('portal.getPortal', { portalId: body.data.portalId }, workspace.rootKey);
    expect(got.body.data.slug).toMatch(/^my-portal-[a-z0-9]+$/);
  });
});

describe('400', () => {
  itRejectsEach(api, 'portal.createPortal', () => workspace.rootKey, [
    [{}, 'body.apiId'],
    [{ apiId: 'api_x', displayName: '' }, 'body.displayName'],
    [{ apiId: 'api_x', displayName: 'A', logoUrl: 'http://cdn.example.com/logo.svg' }, 'body.logoUrl'],
    [{ apiId: 'api_x', displayName: 'A', logoUrl: 'data:image/svg+xml,<svg/>' }, 'body.logoUrl'],
    [{ apiId: 'api_x', displayName: 'A', primaryColor: 'red' }, 'body.primaryColor'],
    [{ apiId: 'api_x', displayName: 'A', primaryColor: '#123;}' }, 'body.primaryColor'],
    [{ apiId: 'api_x', displayName: 'A', slug: 'Not A Slug' }, 'body.slug'],
    [{ apiId: 'api_x', displayName: 'A', keyPolicy: { byteLength: 8 } }, 'body.keyPolicy.byteLength'],
    [
      { apiId: 'api_x', displayName: 'A', keyPolicy: { credits: { remaining: -1 } } },
      'body.keyPolicy.credits.remaining',
    ],
    [{ apiId: 'api_x', displayName: 'A', keyPolicy: { maxKeysPerCustomer: 0 } }, 'body.keyPolicy.maxKeysPerCustomer'],
    [{ apiId: 'api_x', displayName: 'A', keyPolicy: { extra: 1 } }, 'body.keyPolicy.extra'],
  ]);
});

describe('403', () => {
  it('without portal.*.create_portal', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    const { rootKey } = await workspace.rootKeyWith([`api.${apiId}.read_api`]);
    expectMissingPermissions(
      await api.post('portal.createPortal', { apiId, displayName: 'A' }, rootKey),
      'portal.*.create_portal',
    );
  });
});

describe('404', () => {
  it('for an API that does not exist', async () => {
    expectProblem(
      await api.post('portal.createPortal', { apiId: 'api_missing', displayName: 'A' }, workspace.rootKey),
      404,
      'service/data/api_not_found',
    );
  });
});

describe('409', () => {
  it('for a slug a live portal of the workspace has', async () => {
    const apiId = await createTestApi(api, workspace.rootKey);
    await api.call('portal.createPortal', { apiId, displayName: 'A', slug: 'taken' }, workspace.rootKey);
    expectProblem(
      await api.post('portal.createPortal', { apiId, displayName: 'B', slug: 'taken' }, workspace.rootKey),
      409,
      'service/data/portal_already_exists',
    );
  });
});

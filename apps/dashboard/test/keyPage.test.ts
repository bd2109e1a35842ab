import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, keepScreenshot } from './browser.ts';
import {
  type Dashboard,
  DESKTOP,
  PHONE,
  type SeededWorkspace,
  seedRealisticData,
  sidewaysOverflow,
  signIn,
  startDashboard,
  unexpectedErrors,
} from './harness.ts';

// The key page (status, usage, one edit form) and the create-key dialog, on a workspace as people have it.
let dashboard: Dashboard;
let seeded: SeededWorkspace;
let page: Page;

interface KeyAnswer {
  name?: string;
  enabled: boolean;
  meta?: Record<string, unknown>;
  expires?: number;
  credits?: { remaining: number | null; refill?: { interval: string; amount: number; refillDay?: number } };
  ratelimits?: { name: string; limit: number; duration: number; autoApply: boolean }[];
  roles?: string[];
  permissions?: string[];
  identity?: { externalId: string };
}

const getKey = (keyId: string) => dashboard.v2<KeyAnswer>('keys.getKey', { keyId });
const api = () => seeded.apis[1] ?? { id: '', name: '', keyIds: [] };
const keyPage = (keyId: string, apiId = api().id) => `${dashboard.server.url}/dashboard/apis/${apiId}/keys/${keyId}`;

describe.skipIf(!chromiumInstalled)('the key page', () => {
  beforeAll(async () => {
    dashboard = await startDashboard(DESKTOP);
    seeded = await seedRealisticData(dashboard);
    page = dashboard.page;
    await dashboard.v2('permissions.createPermission', { name: 'Read documents', slug: 'documents.read' });
    await dashboard.v2('permissions.createPermission', { name: 'Write documents', slug: 'documents.write' });
    await dashboard.v2('permissions.createRole', { name: 'editor', permissions: ['documents.write'] });
    await signIn(dashboard);
  }, 120_000);

  afterAll(async () => {
    await dashboard?.stop();
  });

  it('shows the status at the top as verification answers it', async () => {
    const cases = [
      [seeded.keysByStatus.expired[0], 'Expired', 'EXPIRED'],
      [seeded.keysByStatus.disabled[0], 'Disabled', 'DISABLED'],
      [seeded.keysByStatus.outOfCredits[0], 'Out of credits', 'USAGE_EXCEEDED'],
    ] as const;
    for (const [keyId = '', label] of cases) {
      const api = seeded.apis.find((candidate) => candidate.keyIds.includes(keyId));
      await page.goto(keyPage(keyId, api?.id));
      await page.locator('.title-with-status .badge').waitFor();
      expect(await page.locator('.title-with-status .badge').textContent()).toBe(label);
      // The breadcrumb names the key's API by its name.
      await page.locator('.breadcrumbs').getByRole('link', { name: api?.name }).waitFor();
    }
    // The usage chart and the last verifications of the key follow the status.
    await page.getByRole('heading', { name: 'Usage of this key' }).waitFor();
    await page.waitForLoadState('networkidle');
    await keepScreenshot(page, 'key-page-desktop');
  });

  it('saves settings, credits with refill, rate limits, roles, permissions, identity and meta with one save', async () => {
    const keyId = api().keyIds[7] ?? '';
    await page.goto(keyPage(keyId));
    const form = page.getByRole('form', { name: 'Edit key' });
    await form.getByLabel('Name', { exact: true }).fill('renamed-in-one-go');
    await form.getByLabel('Meta (JSON object)').fill('[1]');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByText('Meta must be a JSON object').waitFor();
    await form.getByLabel('Meta (JSON object)').fill('{"plan": "enterprise"}');

    const credits = form.getByRole('group', { name: 'Credits' });
    await credits.getByLabel('Limited: each verification spends credits').check();
    await credits.getByLabel('Remaining credits').fill('250');
    await credits.getByLabel('Refill', { exact: true }).selectOption('monthly');
    await credits.getByLabel('Refill to').fill('500');
    await credits.getByLabel('On day of the month').fill('15');

    const limits = form.getByRole('group', { name: 'Rate limits' });
    await limits.getByRole('button', { name: 'Add limit' }).click();
    await limits.getByLabel('Name', { exact: true }).fill('requests');
    await limits.getByLabel('Limit', { exact: true }).fill('20');

    await form.getByRole('group', { name: 'Roles', exact: true }).getByLabel('editor').check();
    await form.getByRole('group', { name: 'Direct permissions' }).getByLabel('documents.read').check();
    await form.getByLabel('External id').fill('customer-05');

    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByText('Saved.').waitFor();
    await page.getByRole('heading', { level: 1, name: 'renamed-in-one-go' }).waitFor();
    // The roles' permissions show apart from the direct ones.
    await form.getByRole('listitem').filter({ hasText: 'documents.write' }).waitFor();

    const saved = await getKey(keyId);
    expect(saved).toMatchObject({
      name: 'renamed-in-one-go',
      meta: { plan: 'enterprise' },
      credits: { remaining: 250, refill: { interval: 'monthly', amount: 500, refillDay: 15 } },
      ratelimits: [{ name: 'requests', limit: 20, duration: 60_000, autoApply: true }],
      roles: ['editor'],
      identity: { externalId: 'customer-05' },
    });
    expect([...(saved.permissions ?? [])].sort()).toEqual(['documents.read', 'documents.write']);
  });

  it('makes credits unlimited by an explicit choice, never an empty field', async () => {
    const keyId = seeded.keysByStatus.lowCredits[0] ?? '';
    const apiId = seeded.apis.find((candidate) => candidate.keyIds.includes(keyId))?.id;
    await page.goto(keyPage(keyId, apiId));
    const credits = page.getByRole('form', { name: 'Edit key' }).getByRole('group', { name: 'Credits' });
    expect(await credits.getByLabel('Remaining credits').inputValue()).toBe('3');
    await credits.getByLabel('Unlimited').check();
    expect(await credits.getByLabel('Remaining credits').count()).toBe(0);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await getKey(keyId)).credits?.remaining ?? null).toBeNull();
    await page.locator('.title-with-status .badge', { hasText: 'Enabled' }).waitFor();
  });

  it('disables the form with the reason for a root key that may only read the key', async () => {
    const { key } = await dashboard.internal<{ key: string }>('rootKeys.createRootKey', {
      name: 'reader',
      permissions: [
        'workspace.*.manage_root_keys',
        `api.${api().id}.read_api`,
        `api.${api().id}.read_key`,
        'rbac.*.read_role',
        'rbac.*.read_permission',
      ],
    });
    const context = await dashboard.browser.newContext({ viewport: DESKTOP });
    const readerPage = await context.newPage();
    await readerPage.goto(`${dashboard.server.url}/dashboard/`);
    await readerPage.getByLabel('Root key').fill(key);
    await readerPage.getByRole('button', { name: 'Sign in' }).click();
    await readerPage.getByRole('navigation', { name: 'Main' }).waitFor();
    await readerPage.goto(keyPage(api().keyIds[8] ?? ''));
    const form = readerPage.getByRole('form', { name: 'Edit key' });
    await form.getByText(`Read only: Your root key lacks api.${api().id}.update_key.`).waitFor();
    expect(await form.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
    expect(await form.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true);
    await form.getByText('Cannot be changed: Your root key lacks rbac.*.add_role_to_key and').waitFor();
    await context.close();
  });

  it('creates a key with every createKey field and lands on its page once the secret is taken', async () => {
    await page.goto(`${dashboard.server.url}/dashboard/apis/${api().id}`);
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create key' });
    await dialog.getByLabel('Name', { exact: true }).fill('made-with-everything');
    await dialog.getByLabel('Prefix').fill('full');
    await dialog.getByLabel('Length in bytes').fill('24');
    await dialog.getByLabel('External id').fill('customer-07');
    await dialog.getByLabel('Meta (JSON object)').fill('{"tier": "gold"}');
    // The API does not store keys encrypted: "recoverable" is not offered, and says why.
    await dialog.getByText('Keys of this API cannot be recoverable').waitFor();
    expect(await dialog.getByLabel(/Recoverable/).count()).toBe(0);
    const credits = dialog.getByRole('group', { name: 'Credits' });
    await credits.getByLabel('Limited: each verification spends credits').check();
    await credits.getByLabel('Remaining credits').fill('100');
    await credits.getByLabel('Refill', { exact: true }).selectOption('daily');
    await credits.getByLabel('Refill to').fill('100');
    await dialog.getByRole('button', { name: 'Add limit' }).click();
    await dialog.getByRole('group', { name: 'Rate limits' }).getByLabel('Name', { exact: true }).fill('burst');
    await dialog.getByRole('group', { name: 'Roles', exact: true }).getByLabel('editor').check();
    await dialog.getByRole('group', { name: 'Permissions' }).getByLabel('documents.read').check();
    await keepScreenshot(page, 'create-key-desktop');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();

    const secret = page.getByTestId('new-secret');
    await secret.waitFor();
    const plaintext = (await secret.textContent())?.trim() ?? '';
    expect(plaintext).toMatch(/^full_/);
    await page.getByRole('button', { name: 'Done: open the key' }).click();
    await page.getByRole('heading', { level: 1, name: 'made-with-everything' }).waitFor();
    const keyId = /\/keys\/(key_\w+)$/.exec(page.url())?.[1] ?? '';
    expect(keyId).not.toBe('');
    expect(await page.getByTestId('new-secret').count()).toBe(0);

    const created = await getKey(keyId);
    expect(created).toMatchObject({
      name: 'made-with-everything',
      enabled: true,
      meta: { tier: 'gold' },
      credits: { remaining: 100, refill: { interval: 'daily', amount: 100 } },
      ratelimits: [{ name: 'burst', limit: 100, duration: 60_000, autoApply: true }],
      roles: ['editor'],
      identity: { externalId: 'customer-07' },
    });
    expect([...(created.permissions ?? [])].sort()).toEqual(['documents.read', 'documents.write']);
    expect(await dashboard.verify(plaintext)).toMatchObject({ valid: true, code: 'VALID' });
  });

  it('offers "recoverable" where the API stores keys encrypted, and creates a disabled key when asked', async () => {
    const encrypting = seeded.apis[2] ?? { id: '' };
    await dashboard.v2('apis.updateApi', { apiId: encrypting.id, encryption: { enabled: true } });
    await page.goto(`${dashboard.server.url}/dashboard/apis/${encrypting.id}`);
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create key' });
    await dialog.getByLabel('Recoverable (stored encrypted, can be revealed later)').waitFor();
    await dialog.getByLabel('Name', { exact: true }).fill('starts-disabled');
    await dialog.getByLabel('Enabled (verifies from the start)').uncheck();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const plaintext = (await page.getByTestId('new-secret').textContent())?.trim() ?? '';
    await page.getByRole('button', { name: 'Done: open the key' }).click();
    await page.locator('.title-with-status .badge', { hasText: 'Disabled' }).waitFor();
    expect(await dashboard.verify(plaintext)).toMatchObject({ valid: false, code: 'DISABLED' });
  });

  it('fits a phone: the key page and the create dialog scroll only downwards', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(keyPage(api().keyIds[7] ?? ''));
    await page.getByRole('form', { name: 'Edit key' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await sidewaysOverflow(page)).toBe(0);
    await keepScreenshot(page, 'key-page-phone');

    await page.goto(`${dashboard.server.url}/dashboard/apis/${api().id}`);
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create key' });
    await dialog.getByRole('group', { name: 'Permissions' }).getByLabel('documents.read').waitFor();
    expect(await sidewaysOverflow(dialog)).toBe(0);
    expect(await sidewaysOverflow(dialog.locator('form'))).toBe(0);
    const box = await dialog.boundingBox();
    expect(box !== null && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
    await keepScreenshot(page, 'create-key-phone');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.setViewportSize(DESKTOP);
  });

  it('reported no script errors', () => {
    expect(unexpectedErrors(dashboard)).toEqual([]);
  });
});

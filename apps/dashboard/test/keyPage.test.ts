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

  it('edits each part of the key in a dialog of its own: name, meta, credits with refill, rate limits, roles, permissions, identity', async () => {
    const keyId = api().keyIds[7] ?? '';
    await page.goto(keyPage(keyId));
    const dialog = page.getByRole('dialog');
    const edit = async (part: string) => {
      await page.getByRole('button', { name: `Edit ${part}` }).click();
      await dialog.waitFor();
    };
    const save = async () => {
      await dialog.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(() => dialog.count()).toBe(0);
    };

    await page.getByRole('button', { name: 'Rename key' }).click();
    await dialog.getByLabel('Key name').fill('renamed-in-its-dialog');
    await save();
    await page.getByRole('heading', { level: 1, name: 'renamed-in-its-dialog' }).waitFor();

    await edit('meta');
    await dialog.getByLabel('Meta (JSON object)').fill('[1]');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.getByText('Meta must be a JSON object').waitFor();
    await dialog.getByLabel('Meta (JSON object)').fill('{"plan": "enterprise"}');
    await save();

    await edit('credits');
    const credits = dialog.getByRole('group', { name: 'Credits' });
    await credits.getByLabel('Limited: each verification spends credits').check();
    await credits.getByLabel('Remaining credits').fill('250');
    await credits.getByLabel('Refill', { exact: true }).selectOption('monthly');
    await credits.getByLabel('Refill to').fill('500');
    await credits.getByLabel('On day of the month').fill('15');
    await save();

    await edit('rate limits');
    await dialog.getByRole('button', { name: 'Add limit' }).click();
    await dialog.getByLabel('Limit', { exact: true }).fill('20');
    await save();

    await edit('roles');
    await dialog.getByRole('group', { name: 'Roles', exact: true }).getByLabel('editor').check();
    await save();
    await edit('permissions');
    await dialog.getByRole('group', { name: 'Direct permissions' }).getByLabel('documents.read').check();
    await save();
    await edit('identity');
    await dialog.getByLabel('External id').fill('customer-05');
    await save();

    // The page shows each part as saved; the roles' permissions apart from the direct ones.
    const card = (title: string) => page.getByRole('region', { name: title, exact: true });
    await card('Credits').getByText('Refilled to 500 monthly, on day 15.').waitFor();
    expect(await card('Credits').getByTestId('credits-remaining').textContent()).toBe('250');
    await card('Rate limits').getByText('20 per 1 min').waitFor();
    await card('Permissions')
      .getByRole('list', { name: 'Permissions through roles' })
      .getByText('documents.write')
      .waitFor();
    await card('Identity').getByRole('link', { name: 'customer-05' }).waitFor();
    await keepScreenshot(page, 'key-page-edited-desktop');

    const saved = await getKey(keyId);
    expect(saved).toMatchObject({
      name: 'renamed-in-its-dialog',
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
    // A key low on credits says so at the top.
    await page.locator('.title-with-status .badge', { hasText: 'Low credits' }).waitFor();
    await page.getByRole('button', { name: 'Edit credits' }).click();
    const credits = page.getByRole('dialog').getByRole('group', { name: 'Credits' });
    expect(await credits.getByLabel('Remaining credits').inputValue()).toBe('3');
    await credits.getByLabel('Unlimited').check();
    expect(await credits.getByLabel('Remaining credits').count()).toBe(0);
    await page.getByRole('dialog').getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect((await getKey(keyId)).credits?.remaining ?? null).toBeNull();
    await page.locator('.title-with-status .badge', { hasText: 'Enabled' }).waitFor();
  });

  it('disables editing, with the reason, for a root key that may only read the key', async () => {
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
    await readerPage.getByRole('button', { name: 'Sign in with a root key' }).click();
    await readerPage.getByLabel('Root key').fill(key);
    await readerPage.getByRole('button', { name: 'Sign in', exact: true }).click();
    await readerPage.getByRole('navigation', { name: 'Main' }).waitFor();
    await readerPage.goto(keyPage(api().keyIds[8] ?? ''));
    await readerPage.getByText(`Read only: Your root key lacks api.${api().id}.update_key.`).waitFor();
    for (const part of ['credits', 'rate limits', 'expiry', 'identity', 'roles', 'permissions', 'meta']) {
      const button = readerPage.getByRole('button', { name: `Edit ${part}` });
      expect({ part, disabled: await button.isDisabled() }).toEqual({ part, disabled: true });
    }
    expect(await readerPage.getByRole('button', { name: 'Rename key' }).isDisabled()).toBe(true);
    // Each says why on hover: the roles need the rbac actions besides update_key.
    expect(await readerPage.getByRole('button', { name: 'Edit roles' }).getAttribute('title')).toContain(
      'rbac.*.add_role_to_key',
    );
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
    await dialog.getByRole('group', { name: 'Rate limits' }).getByLabel('Limit name').fill('burst');
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
    await page.getByRole('region', { name: 'Credits', exact: true }).waitFor();
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

import { loadEnv } from '@keyplane/config';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { collectPageErrors, keepScreenshot, launchChromium } from './browser.ts';

// The dashboard end to end: a real server process on a fresh database (which bootstraps a
// workspace and prints its root key, as `npm start` does), driven in Chromium.
let database: TestDatabase;
let server: SpawnedServer;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let bootstrapKey: string;
const state: { apiId?: string; key?: string; keyPage?: string } = {};

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  const { REDIS_URL } = loadEnv();
  server = await spawnServer({ DATABASE_URL: database.url, ...(REDIS_URL ? { REDIS_URL } : {}) });
  if (!server.rootKey) throw new Error('the server did not print a bootstrap root key');
  bootstrapKey = server.rootKey;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(10_000);
  pageErrors = collectPageErrors(page);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await database?.drop();
});

/** A /v2 call with the bootstrap root key, as a customer's backend would make it. */
async function v2<TData>(procedure: string, body: unknown): Promise<TData> {
  const response = await fetch(`${server.url}/v2/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bootstrapKey}` },
    body: JSON.stringify(body),
  });
  const payload = (await response.json()) as { data: TData };
  return payload.data;
}

const verify = (key: string) => v2<{ valid: boolean; code: string }>('keys.verifyKey', { key });

describe('the dashboard in Chromium', () => {
  it('signs in with the bootstrap root key; the browser keeps only an HTTP-only session cookie', async () => {
    await page.goto(`${server.url}/dashboard/`);
    await page.getByLabel('Root key').fill(bootstrapKey);
    await keepScreenshot(page, '01-sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.map(({ name, httpOnly, sameSite }) => ({ name, httpOnly, sameSite }))).toEqual([
      { name: 'keyplane_session', httpOnly: true, sameSite: 'Strict' },
    ]);
    expect(JSON.stringify(cookies)).not.toContain(bootstrapKey);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).not.toContain(
      bootstrapKey,
    );
  });

  it('creates a root key and shows it exactly once', async () => {
    await page.getByRole('link', { name: 'Root keys' }).click();
    await page.getByRole('button', { name: 'Create root key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('e2e-admin');
    await dialog.getByLabel('api.*.create_api').check();
    await dialog.getByLabel('api.*.read_api').check();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const secret = page.getByTestId('new-secret');
    await secret.waitFor();
    await expect.poll(() => page.getByText('You will not see it again').count()).toBeGreaterThan(0);
    await keepScreenshot(page, '02-root-key-created');
    const rootKey = (await secret.textContent())?.trim() ?? '';
    expect(rootKey).toMatch(/^kproot_/);
    // The new key works, with exactly what was picked.
    const created = await fetch(`${server.url}/v2/apis.createApi`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
      body: JSON.stringify({ name: 'made-by-e2e-admin' }),
    });
    expect(created.status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByTestId('new-secret').count()).toBe(0);
    await expect.poll(() => page.getByRole('cell', { name: 'e2e-admin' }).count()).toBe(1);
    expect(await page.content()).not.toContain(rootKey);
    await page.reload();
    await page.getByRole('cell', { name: 'e2e-admin' }).waitFor();
    expect(await page.content()).not.toContain(rootKey);
    await keepScreenshot(page, '03-root-keys');
  });

  it('creates an API and a key in it', async () => {
    await page.getByRole('link', { name: 'APIs' }).click();
    await page.getByRole('button', { name: 'Create API' }).click();
    await page.getByRole('dialog').getByLabel('API name').fill('e2e-api');
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    // A new API opens at once.
    await page.getByRole('heading', { name: 'e2e-api' }).waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('e2e-key');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const secret = page.getByTestId('new-secret');
    await secret.waitFor();
    state.key = (await secret.textContent())?.trim();
    state.apiId = /\/apis\/(api_[0-9a-f]+)/.exec(page.url())?.[1];
    expect(state.apiId).toBeDefined();
    expect(await verify(state.key ?? '')).toMatchObject({ valid: true, code: 'VALID' });
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('link', { name: 'e2e-key' }).waitFor();
    await keepScreenshot(page, '04-api-keys');
  });

  it('disables the key, after which its verification fails', async () => {
    await page.getByRole('link', { name: 'e2e-key' }).click();
    state.keyPage = page.url();
    await page.getByRole('button', { name: 'Disable key' }).click();
    await page.getByRole('button', { name: 'Enable key' }).waitFor();
    await keepScreenshot(page, '05-key-disabled');
    expect(await verify(state.key ?? '')).toMatchObject({ valid: false, code: 'DISABLED' });
  });

  it('edits the key: settings (with a meta check), rate limits, permissions and identity', async () => {
    const keyId = /\/keys\/(key_\w+)/.exec(state.keyPage ?? '')?.[1] ?? '';
    await v2('permissions.createPermission', { name: 'documents.read', slug: 'documents.read' });
    await page.reload();
    const settings = page.getByRole('region', { name: 'Settings', exact: true });
    await settings.getByLabel('Name', { exact: true }).fill('e2e-key-renamed');
    await settings.getByLabel('Meta (JSON object)').fill('[1]');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.getByText('Meta must be a JSON object').waitFor();
    await settings.getByLabel('Meta (JSON object)').fill('{"plan": "pro"}');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('heading', { level: 1, name: 'e2e-key-renamed' }).waitFor();

    const limits = page.getByRole('region', { name: 'Rate limits', exact: true });
    await limits.getByRole('button', { name: 'Add limit' }).click();
    await limits.getByLabel('Name', { exact: true }).fill('requests');
    await limits.getByRole('button', { name: 'Save rate limits' }).click();
    await limits.getByText('Saved.').waitFor();

    const access = page.getByRole('region', { name: 'Roles and permissions' });
    await access.getByLabel('documents.read').check();
    await access.getByRole('button', { name: 'Save permissions' }).click();
    await access.getByText('Saved.').waitFor();
    // The saved form shows the key's direct permissions as keys.getKeyAccess answers them.
    expect(await access.getByLabel('documents.read').isChecked()).toBe(true);

    const identity = page.getByRole('region', { name: 'Identity', exact: true });
    await identity.getByLabel('External id').fill('e2e-customer');
    await identity.getByRole('button', { name: 'Link identity' }).click();
    await identity.getByRole('link', { name: 'e2e-customer' }).waitFor();
    await keepScreenshot(page, '05b-key-edited');

    expect(await v2('keys.getKey', { keyId })).toMatchObject({
      name: 'e2e-key-renamed',
      meta: { plan: 'pro' },
      ratelimits: [{ name: 'requests', limit: 100, duration: 60_000, autoApply: true }],
      permissions: ['documents.read'],
      identity: { externalId: 'e2e-customer' },
    });
  });

  it('charts the verifications by outcome', async () => {
    await verify(state.key ?? '');
    await page.getByRole('link', { name: 'Usage' }).click();
    const chart = page.getByRole('img', { name: 'Verifications by outcome' });
    await chart.waitFor();
    // Events are written in batches off the request path; the screen shows them once they land.
    const legend = page.locator('.legend').first();
    await expect
      .poll(
        async () => {
          await page.reload();
          await chart.waitFor();
          return legend.textContent();
        },
        { timeout: 15_000, interval: 1000 },
      )
      .toMatch(/DISABLED: 2/);
    expect(await legend.textContent()).toMatch(/VALID: 1/);
    expect(await chart.locator('rect').count()).toBeGreaterThan(0);
    await keepScreenshot(page, '06-usage');
  });

  it('filters the usage by a key picked from a search', async () => {
    await page.getByLabel('API', { exact: true }).selectOption({ label: 'e2e-api' });
    await page.getByLabel('Search keys').fill('renamed');
    const keySelect = page.getByLabel('Key', { exact: true });
    await expect.poll(() => keySelect.locator('option').count()).toBe(2);
    await keySelect.selectOption({ index: 1 });
    const identitySelect = page.getByLabel('Identity', { exact: true });
    await expect.poll(() => identitySelect.locator('option', { hasText: 'e2e-customer' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.locator('.legend').first().textContent()).toMatch(/DISABLED: 2/);
    await keepScreenshot(page, '06b-usage-filtered');
  });

  it('shows the changes in the audit log', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    for (const event of [
      'dashboard.signIn',
      'rootKeys.createRootKey',
      'apis.createApi',
      'keys.createKey',
      'keys.updateKey',
    ]) {
      await page.getByText(event).first().waitFor();
    }
    await keepScreenshot(page, '07-audit-log');
  });

  it('fits a phone screen without sideways scrolling of the page', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const screens = ['root-keys', `apis/${state.apiId}`, 'roles', 'identities', 'ratelimits', 'usage', 'audit'];
    for (const screen of [...screens.map((path) => `${server.url}/dashboard/${path}`), state.keyPage ?? '']) {
      await page.goto(screen);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect({ screen, overflow }).toEqual({ screen, overflow: 0 });
    }
    await page.goto(`${server.url}/dashboard/root-keys`);
    await page.getByRole('cell', { name: 'e2e-admin' }).waitFor();
    await keepScreenshot(page, '08-root-keys-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('signs out, ending the session on the server', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Root key').waitFor();
    await page.goto(`${server.url}/dashboard/apis`);
    await page.getByLabel('Root key').waitFor();
  });

  it('reported no script errors', () => {
    // The only failed requests a visit makes are the 401s of "who is signed in?" while signed out.
    expect(pageErrors.filter((error) => !error.includes('401'))).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, collectPageErrors } from '../../dashboard/test/browser.ts';
import {
  type Dashboard,
  DESKTOP,
  EXPECTED_FAILURES,
  PHONE,
  sidewaysOverflow,
  startDashboard,
} from '../../dashboard/test/harness.ts';
import { keepScreenshot } from './screenshots.ts';

// The customer portal page (docs/portal.md) as a provider's customer uses it: one server process,
// one Chromium; a provider's API with a portal, a customer with keys and traffic; the page at
// desktop and phone width, every change a customer can make, and the session-ended screens.
let dashboard: Dashboard;
let apiId: string;
let portalId: string;
const pageErrors: string[] = [];
const LOGO = 'https://cdn.acme.test/logo.svg';
const RETURN_URL = 'https://acme.test/account/api-keys';
const CUSTOMER = 'acme-customer-7';
const ALL_SCOPES = ['keys:read', 'keys:create', 'keys:reroll', 'keys:update', 'keys:delete', 'analytics:read'];

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.x A and AA rules on the page as it is: what fails, and where. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: typeof import('axe-core') }).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
    });
    return result.violations.flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}: ${node.failureSummary ?? ''}`),
    );
  });
}

/** A new portal session for the customer, as the provider's backend opens it: the page's address with its code. */
async function sessionUrl(scopes = ALL_SCOPES): Promise<string> {
  const { url } = await dashboard.v2<{ url: string }>('portal.createSession', {
    portal: portalId,
    externalId: CUSTOMER,
    scopes,
    returnUrl: RETURN_URL,
  });
  return url.replace(/^https?:\/\/[^/]+/, dashboard.server.url);
}

/** Requests the page made to another origin than the server's, but the logo. */
const elsewhere: string[] = [];

/** A browser context at this width; the logo's host answers from here (no request leaves the machine). */
async function portalPage(viewport: {
  width: number;
  height: number;
}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await dashboard.browser.newContext({ viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: dashboard.server.url });
  await context.route(LOGO, (route) =>
    route.fulfill({
      contentType: 'image/svg+xml',
      body: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b3d91"/></svg>',
    }),
  );
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(dashboard.server.url) && url !== LOGO && !url.startsWith('data:')) elsewhere.push(url);
  });
  const errors = collectPageErrors(page);
  page.on('close', () => pageErrors.push(...errors));
  return { context, page };
}

const keyItems = (page: Page) => page.getByRole('list', { name: 'Your keys' }).getByRole('listitem');
const keyNames = (page: Page) => keyItems(page).getByRole('heading').allTextContents();

async function open(page: Page, url: string): Promise<void> {
  const response = await page.goto(url);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
}

describe.skipIf(!chromiumInstalled)('the customer portal page', () => {
  beforeAll(async () => {
    dashboard = await startDashboard(DESKTOP);
    ({ apiId } = await dashboard.v2<{ apiId: string }>('apis.createApi', { name: 'acme-public-api' }));
    ({ portalId } = await dashboard.v2<{ portalId: string }>('portal.createPortal', {
      apiId,
      displayName: 'Acme Cloud',
      logoUrl: LOGO,
      primaryColor: '#0b3d91',
      supportUrl: 'https://acme.test/support',
      keyPolicy: { prefix: 'acme', credits: { remaining: 1000 } },
    }));
    // The customer's keys made by the provider before the portal: one with limits, one disabled.
    const { key } = await dashboard.v2<{ key: string }>('keys.createKey', {
      apiId,
      externalId: CUSTOMER,
      name: 'Production server',
      credits: { remaining: 5000, refill: { interval: 'daily', amount: 5000 } },
      ratelimits: [{ name: 'requests', limit: 100, duration: 60_000, autoApply: true }],
    });
    await dashboard.v2('keys.createKey', { apiId, externalId: CUSTOMER, name: 'Old staging key', enabled: false });
    // Another customer's key, which this one must never see.
    await dashboard.v2('keys.createKey', { apiId, externalId: 'someone-else', name: 'Not yours' });
    for (let call = 0; call < 12; call++) await dashboard.verify(key);
  }, 120_000);

  afterAll(async () => {
    await dashboard?.stop();
  });

  it('shows the customer their keys, branded, at desktop width with nothing from elsewhere', async () => {
    const { context, page } = await portalPage(DESKTOP);
    await open(page, await sessionUrl());
    // The code is gone from the address at once.
    expect(new URL(page.url()).search).toBe('');
    expect(await page.title()).toBe('API keys · Acme Cloud');
    await expect.poll(() => keyNames(page)).toEqual(expect.arrayContaining(['Production server', 'Old staging key']));
    expect(await keyNames(page)).not.toContain('Not yours');
    const production = keyItems(page).filter({ hasText: 'Production server' });
    expect(await production.textContent()).toMatch(/Active.*acme_|Active.*\w+…/);
    expect(await production.getByText(/^4,988 left, refilled to 5,000 daily$/).count()).toBe(1);
    expect(await production.getByText('requests: 100 per minute').count()).toBe(1);
    expect(await keyItems(page).filter({ hasText: 'Old staging key' }).getByText('Disabled').count()).toBe(1);
    expect(await page.locator('.brand-bar').evaluate((bar) => getComputedStyle(bar).backgroundColor)).toBe(
      'rgb(11, 61, 145)',
    );
    expect(
      await page.locator('img.logo').evaluate((image) => (image as HTMLImageElement).naturalWidth),
    ).toBeGreaterThan(0);
    expect(await page.getByRole('link', { name: 'Back to Acme Cloud' }).getAttribute('href')).toBe(RETURN_URL);
    // The usage chart: the 12 verifications of the production key, in total and for that key alone.
    const chartName = () => page.locator('.chart-body').getAttribute('aria-label');
    await expect
      .poll(
        async () => {
          await page.getByLabel('Period').selectOption('7');
          await page.getByLabel('Period').selectOption('30');
          return chartName();
        },
        { timeout: 20_000 },
      )
      .toContain('All your keys: 12 verifications');
    await page.getByLabel('Key', { exact: true }).selectOption({ label: 'Production server' });
    await expect.poll(chartName).toContain('Production server: 12 verifications');
    await page.getByLabel('Key', { exact: true }).selectOption({ label: 'Old staging key' });
    await expect.poll(chartName).toContain('Old staging key: no verifications');
    await page.getByLabel('Key', { exact: true }).selectOption({ label: 'All keys' });
    expect(await sidewaysOverflow(page)).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    await keepScreenshot(page, 'portal-desktop');
    expect(elsewhere).toEqual([]);
    await context.close();
  });

  it('lets the customer create, rename, roll and delete a key', async () => {
    const { context, page } = await portalPage(DESKTOP);
    await open(page, await sessionUrl());
    await keyItems(page).first().waitFor();

    // Create: the plaintext shown once, with a copy button; it verifies.
    await page.getByRole('button', { name: 'Create key' }).click();
    const create = page.getByRole('dialog', { name: 'Create a key' });
    await create.getByLabel('Name (optional)').fill('CI runner');
    await create.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('dialog', { name: 'Your new key' });
    const created = await shown.getByLabel('New key').inputValue();
    expect(created).toMatch(/^acme_/);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => shown.getByRole('status').textContent()).toBe('Copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(created);
    expect(await accessibilityProblems(page)).toEqual([]);
    await keepScreenshot(page, 'portal-new-key');
    await shown.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => keyNames(page)).toContain('CI runner');
    expect(await dashboard.verify(created)).toMatchObject({ valid: true });
    const ciKey = keyItems(page).filter({ hasText: 'CI runner' });
    expect(await ciKey.getByText('1,000 left').count()).toBe(1);

    // Rename.
    await page.getByRole('button', { name: 'Rename CI runner' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename key' });
    expect(await rename.getByLabel('Name').inputValue()).toBe('CI runner');
    await rename.getByLabel('Name').fill('Build server');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await rename.waitFor({ state: 'hidden' });
    await expect.poll(() => keyNames(page)).toContain('Build server');

    // Roll with no grace period: the old key stops, the new one verifies.
    await page.getByRole('button', { name: 'Roll Build server' }).click();
    const roll = page.getByRole('dialog', { name: 'Roll Build server' });
    await roll.getByLabel('Stop it now').check();
    await roll.getByRole('button', { name: 'Roll key' }).click();
    const rolled = await page.getByRole('dialog', { name: 'Your new key' }).getByLabel('New key').inputValue();
    expect(rolled).not.toBe(created);
    await page.getByRole('dialog', { name: 'Your new key' }).getByRole('button', { name: 'Done' }).click();
    expect(await dashboard.verify(rolled)).toMatchObject({ valid: true });
    await expect.poll(async () => (await dashboard.verify(created)).valid).toBe(false);

    // Delete, after a confirmation that can be cancelled.
    const before = (await keyNames(page)).length;
    const newest = (await keyNames(page)).filter((name) => name === 'Build server');
    expect(newest.length).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Delete Build server' }).first().click();
    const confirm = page.getByRole('dialog', { name: 'Delete this key?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await keyNames(page)).length).toBe(before);
    for (let left = newest.length; left > 0; left--) {
      await page.getByRole('button', { name: 'Delete Build server' }).first().click();
      await confirm.getByRole('button', { name: 'Delete key' }).click();
      await confirm.waitFor({ state: 'hidden' });
      await expect
        .poll(async () => (await keyNames(page)).filter((name) => name === 'Build server').length)
        .toBe(left - 1);
    }
    await expect.poll(() => keyNames(page)).not.toContain('Build server');
    expect(await dashboard.verify(rolled)).toMatchObject({ valid: false });
    await context.close();
  });

  it('fits a 390 px phone, dialogs included, and offers only what the scopes allow', async () => {
    const { context, page } = await portalPage(PHONE);
    await open(page, await sessionUrl());
    await keyItems(page).first().waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    await keepScreenshot(page, 'portal-phone');
    await page.getByRole('button', { name: 'Roll Production server' }).click();
    await page.getByRole('dialog', { name: 'Roll Production server' }).waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    await keepScreenshot(page, 'portal-phone-roll');
    await page.keyboard.press('Escape');

    // keys:read only: the keys, and nothing to change them with.
    await open(page, await sessionUrl(['keys:read']));
    await keyItems(page).first().waitFor();
    expect(await page.getByRole('button', { name: /Create key|Roll|Rename|Delete/ }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Usage' }).count()).toBe(0);
    await context.close();
  });

  it('says when the session ended, and leads back to the provider', async () => {
    const { context, page } = await portalPage(PHONE);
    const url = await sessionUrl();
    await open(page, url);
    await keyItems(page).first().waitFor();
    await dashboard.v2('portal.revokeSession', { portal: portalId, externalId: CUSTOMER });
    // The next call is refused: the page shows the ended screen in place of the keys.
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog', { name: 'Create a key' }).getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Your session has ended' }).waitFor();
    expect(await page.getByRole('link', { name: 'Back to Acme Cloud' }).getAttribute('href')).toBe(RETURN_URL);
    expect(await sidewaysOverflow(page)).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    await keepScreenshot(page, 'portal-session-ended');

    // The same link again: its code was used.
    await page.goto(url);
    await page.getByRole('heading', { name: 'This link no longer works' }).waitFor();
    expect(await page.getByRole('link', { name: 'Back to Acme Cloud' }).getAttribute('href')).toBe(RETURN_URL);
    await context.close();
    expect(pageErrors.filter((error) => !EXPECTED_FAILURES.some((expected) => error.includes(expected)))).toEqual([]);
  });
});

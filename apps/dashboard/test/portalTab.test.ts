import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, keepScreenshot } from './browser.ts';
import {
  type Dashboard,
  DESKTOP,
  PHONE,
  sidewaysOverflow,
  signIn,
  startDashboard,
  unexpectedErrors,
} from './harness.ts';

// An API's Portal tab (docs/dashboard.md): a provider configures the customer portal, previews it as
// one of its customers in a new tab, revokes that customer's sessions and deletes the portal.
let dashboard: Dashboard;
let apiId: string;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

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

interface PortalData {
  portalId: string;
  displayName: string;
  primaryColor: string | null;
  logoUrl: string | null;
  enabled: boolean;
  keyPolicy: { credits?: { remaining: number | null }; maxKeysPerCustomer?: number; ratelimits?: unknown[] };
}

const portals = () => dashboard.v2<PortalData[]>('portal.listPortals', { apiId });
const sessionRows = (page: Page) =>
  page.getByRole('table', { name: 'Sessions of this portal, newest first' }).locator('tbody tr');

describe.skipIf(!chromiumInstalled)('the Portal tab', () => {
  beforeAll(async () => {
    dashboard = await startDashboard(DESKTOP);
    ({ apiId } = await dashboard.v2<{ apiId: string }>('apis.createApi', { name: 'acme-public-api' }));
    await signIn(dashboard);
  }, 120_000);

  afterAll(async () => {
    await dashboard?.stop();
  });

  it('configures the portal, previews it as a customer, revokes their sessions and deletes the portal', async () => {
    const { page } = dashboard;
    await page.goto(`${dashboard.server.url}/dashboard/apis/${apiId}?tab=portal`);
    await page.getByRole('heading', { name: 'Customer portal' }).waitFor();
    await page.getByText('This API has no customer portal yet.').waitFor();

    await page.getByLabel('Display name').fill('Acme Cloud');
    await page.getByLabel('Logo URL').fill('https://cdn.acme.test/logo.svg');
    await page.getByLabel('Primary colour', { exact: true }).fill('#0B3D91');
    await page.getByLabel('Most keys per customer').fill('3');
    // Credits and rate limits with the fields a new key has in the dashboard.
    await page.getByLabel('Limited: each verification spends credits').check();
    await page.getByLabel('Remaining credits').fill('500');
    await page.getByLabel('Refill', { exact: true }).selectOption('monthly');
    await page.getByLabel('Refill to').fill('500');
    await page.getByLabel('On day of the month').fill('15');
    await page.getByRole('button', { name: 'Add limit' }).click();
    await page.getByRole('button', { name: 'Create portal' }).click();
    await page.getByRole('heading', { name: 'Preview as a customer' }).waitFor();
    expect(await portals()).toEqual([
      expect.objectContaining({
        displayName: 'Acme Cloud',
        logoUrl: 'https://cdn.acme.test/logo.svg',
        primaryColor: '#0b3d91',
        enabled: true,
        keyPolicy: expect.objectContaining({
          credits: { remaining: 500, refill: { interval: 'monthly', amount: 500, refillDay: 15 } },
          ratelimits: [{ name: 'requests', limit: 100, duration: 60_000, autoApply: true }],
          maxKeysPerCustomer: 3,
        }),
      }),
    ]);

    // A colour that is not hex is refused on the form, before the server is asked.
    await page.getByLabel('Primary colour', { exact: true }).fill('red');
    expect(await page.getByText('A hex colour such as #1a2b3c').count()).toBe(1);
    await page.getByLabel('Primary colour', { exact: true }).fill('#e11d48');
    await page.getByLabel('Display name').fill('Acme Cloud Platform');
    await page.getByRole('button', { name: 'Save portal' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    expect((await portals())[0]).toMatchObject({ displayName: 'Acme Cloud Platform', primaryColor: '#e11d48' });
    expect(await sidewaysOverflow(page)).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    await keepScreenshot(page, 'portal-tab-desktop');

    // Preview as a customer: the portal page opens in a new tab, as that customer, with the branding.
    await page.getByLabel('Customer (their externalId)').fill('acme-customer-1');
    const opened = page.context().waitForEvent('page');
    await page.getByRole('button', { name: 'Preview as this customer' }).click();
    const preview = await opened;
    await preview.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(await preview.locator('.provider').textContent()).toBe('Acme Cloud Platform');
    await preview.getByRole('button', { name: 'Create key' }).click();
    await preview.getByRole('dialog', { name: 'Create a key' }).getByRole('button', { name: 'Create key' }).click();
    const key = await preview.getByRole('textbox', { name: 'New key' }).inputValue();
    expect(await dashboard.verify(key)).toMatchObject({ valid: true });
    await preview.getByRole('button', { name: 'Done' }).click();
    // Created under the key policy saved above: 500 credits (the list was read before the verification
    // spent one), refilled monthly.
    await expect.poll(() => preview.getByText(/^(500|499) left, refilled to 500 monthly on day 15$/).count()).toBe(1);
    // …with its monthly refill and its rate limit, as keys.getKey tells the provider.
    const [created] = await dashboard.v2<{ keyId: string }[]>('apis.listKeys', { apiId });
    expect(await dashboard.v2('keys.getKey', { keyId: created?.keyId })).toMatchObject({
      credits: { remaining: expect.any(Number), refill: { interval: 'monthly', amount: 500, refillDay: 15 } },
      ratelimits: [{ name: 'requests', limit: 100, duration: 60_000, autoApply: true }],
    });

    // The session shows, marked as a preview; revoking it asks first, then ends it at once.
    await page.reload();
    await expect.poll(() => sessionRows(page).first().textContent()).toMatch(/acme-customer-1.*Preview.*Active/);
    await page.getByRole('button', { name: 'Revoke the sessions of acme-customer-1' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke this customer’s sessions?' });
    await confirm.getByRole('button', { name: 'Revoke sessions' }).click();
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(() => sessionRows(page).first().textContent()).toContain('Revoked');
    await preview.reload();
    await preview.getByRole('heading', { name: 'Your session has ended' }).waitFor();
    await preview.close();

    await page.setViewportSize(PHONE);
    await page.getByRole('heading', { name: 'Customer sessions' }).scrollIntoViewIfNeeded();
    expect(await sidewaysOverflow(page)).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    await keepScreenshot(page, 'portal-tab-phone');

    // Deleting the portal asks first; Cancel keeps it, confirming deletes it and the tab offers a new one.
    await page.setViewportSize(DESKTOP);
    await page.getByRole('button', { name: 'Delete portal' }).click();
    const deletion = page.getByRole('dialog', { name: 'Delete this portal?' });
    await deletion.getByRole('button', { name: 'Cancel' }).click();
    await deletion.waitFor({ state: 'detached' });
    expect(await portals()).toHaveLength(1);
    await page.getByRole('button', { name: 'Delete portal' }).click();
    await deletion.getByRole('button', { name: 'Delete portal' }).click();
    await deletion.waitFor({ state: 'detached' });
    await page.getByText('This API has no customer portal yet.').waitFor();
    expect(await portals()).toEqual([]);
    expect(await dashboard.verify(key)).toMatchObject({ valid: true });
    expect(unexpectedErrors(dashboard)).toEqual([]);
  });
});

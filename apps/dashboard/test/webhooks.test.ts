import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

// The Webhooks screens: endpoints created, changed and deleted in the UI, and the delivery log with
// what each attempt got. The server under test refuses private targets, as production does, so
// the endpoints point at a public-looking name that does not resolve: every attempt fails with
// the resolver's error, which the log must show.
let dashboard: Dashboard;
let page: Page;
let apiId: string;

const HOOK_URL = 'https://hooks.example.com/keyplane';

interface EndpointAnswer {
  endpointId: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  apiIds: string[] | null;
  enabled: boolean;
  creditsLow: { threshold: number | null; percent: number | null };
  expiringNoticeMs: number;
  failingSince: number | null;
}

interface DeliveryAnswer {
  deliveryId: string;
  eventType: string;
  attempts: { statusCode: number | null; error: string | null }[];
}

const listEndpoints = () => dashboard.v2<EndpointAnswer[]>('webhooks.listEndpoints', {});
const webhooksPage = () => `${dashboard.server.url}/dashboard/webhooks`;

describe.skipIf(!chromiumInstalled)('the Webhooks screens', () => {
  beforeAll(async () => {
    dashboard = await startDashboard(DESKTOP);
    page = dashboard.page;
    ({ apiId } = await dashboard.v2<{ apiId: string }>('apis.createApi', { name: 'billing-api' }));
    await signIn(dashboard);
  }, 120_000);

  afterAll(async () => {
    await dashboard?.stop();
  });

  it('creates an endpoint, shows its secret once and lists it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No endpoints yet').waitFor();
    await page.getByRole('button', { name: 'Create endpoint' }).click();

    const dialog = page.getByRole('dialog', { name: 'Create endpoint' });
    await dialog.getByLabel('URL').fill(HOOK_URL);
    await dialog.getByLabel('Description (optional)').fill('billing alerts');
    await dialog.getByLabel('All events, including types added later').uncheck();
    await dialog.getByLabel('key.credits.low', { exact: true }).check();
    await dialog.getByLabel('key.expiring', { exact: true }).check();
    await dialog.getByLabel('billing-api').check();
    await dialog.getByLabel('At or below this many credits').fill('5');
    await dialog.getByLabel('Send key.expiring this many days before a key expires').fill('3');
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();

    const secret = (await page.getByTestId('new-secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^whsec_/);
    const row = page.getByRole('row', { name: new RegExp(HOOK_URL) });
    await row.waitFor();
    expect(await row.textContent()).toContain('key.credits.low, key.expiring');
    expect(await listEndpoints()).toMatchObject([
      {
        url: HOOK_URL,
        description: 'billing alerts',
        eventTypes: ['key.credits.low', 'key.expiring'],
        apiIds: [apiId],
        enabled: true,
        creditsLow: { threshold: 5, percent: null },
        expiringNoticeMs: 3 * 86_400_000,
      },
    ]);
    // Nothing but the secret panel ever shows it.
    expect(await page.locator('main').textContent()).toContain(secret);
    await keepScreenshot(page, 'webhooks-created-desktop');
    await page.getByRole('button', { name: 'Open endpoint' }).click();
    await page.getByRole('heading', { name: HOOK_URL, level: 1 }).waitFor();
    await page.locator('.facts').getByText('billing-api').waitFor();
    expect(await page.locator('main').textContent()).not.toContain(secret);
  });

  it('sends a test event and logs the failed attempt with the error it got', async () => {
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event queued').waitFor();
    const log = page.getByRole('table', { name: 'Deliveries, newest first' });
    const delivery = log.getByRole('row', { name: /^webhook\.test delivery/ });
    await delivery.waitFor();
    // The worker tries it at once; the log looks again while a delivery is pending.
    await delivery.locator('td[data-label="Last answer"]', { hasText: 'No answer' }).waitFor();
    // One row per delivery; its attempts open under it.
    expect(await page.locator('.attempt-error').count()).toBe(0);
    await delivery.getByRole('button', { name: 'webhook.test', exact: true }).click();
    const details = log.locator('tr.delivery-details');
    const attemptError = details.locator('.attempt-error').first();
    await attemptError.waitFor();
    const [endpoint] = await listEndpoints();
    const stored = await dashboard.v2<DeliveryAnswer[]>('webhooks.listDeliveries', {
      endpointId: endpoint?.endpointId,
    });
    const firstAttempt = stored[0]?.attempts[0];
    expect(firstAttempt).toMatchObject({ statusCode: null, error: expect.any(String) });
    expect(await attemptError.textContent()).toBe(firstAttempt?.error);
    expect(await details.getByRole('listitem').first().textContent()).toMatch(/Attempt 1 · .* · No answer · \d+ ms/);
    await page.waitForLoadState('networkidle');
    await keepScreenshot(page, 'webhook-delivery-log-desktop');
  });

  it('redelivers an event as a new delivery, and filters the log by state and event type, in the URL', async () => {
    const log = page.getByRole('table', { name: 'Deliveries, newest first' });
    const rows = log.getByRole('row', { name: /^webhook\.test delivery/ });
    await log.getByRole('button', { name: 'Redeliver webhook.test delivery' }).first().click();
    await expect.poll(() => rows.count()).toBe(2);

    // Neither has been delivered: the receiver does not resolve.
    await page.getByLabel('State').selectOption({ label: 'Delivered' });
    await log.getByText('No delivery matches the state and event type.').waitFor();
    expect(new URL(page.url()).searchParams.get('state')).toBe('succeeded');
    await page.reload();
    await log.getByText('No delivery matches the state and event type.').waitFor();
    await page.getByLabel('State').selectOption({ label: 'Any state' });
    await page.getByLabel('Event type').selectOption('webhook.test');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel('Event type').selectOption('');
  });

  it('edits the endpoint, disables and enables it, and rotates its secret', async () => {
    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit endpoint' });
    expect(await dialog.getByLabel('URL').inputValue()).toBe(HOOK_URL);
    await dialog.getByLabel('Description (optional)').fill('renamed alerts');
    await dialog.getByLabel('All events, including types added later').check();
    await dialog.getByRole('button', { name: 'Save endpoint' }).click();
    await page.locator('.facts').getByText('renamed alerts').waitFor();
    expect(await listEndpoints()).toMatchObject([{ description: 'renamed alerts', eventTypes: ['*'] }]);

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.locator('.title-with-status .badge', { hasText: 'Disabled' }).waitFor();
    expect(await page.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    // A refetch landing as the button is clicked can re-render it under the pointer: click again
    // until the endpoint says it is enabled.
    const enabled = page.locator('.title-with-status .badge', { hasText: 'Enabled' });
    await vi.waitFor(
      async () => {
        if (!(await enabled.isVisible())) {
          await page.getByRole('button', { name: 'Enable', exact: true }).click({ timeout: 2_000 });
        }
        await enabled.waitFor({ timeout: 2_000 });
      },
      { timeout: 20_000, interval: 200 },
    );

    const [before] = await listEndpoints();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page
      .getByRole('dialog', { name: 'Rotate signing secret' })
      .getByRole('button', { name: 'Rotate secret' })
      .click();
    const rotated = (await page.getByTestId('new-secret').textContent())?.trim() ?? '';
    expect(rotated).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('new-secret').count()).toBe(0);
    // Everything but the time of the change stays as it was. `failingSince` is the delivery
    // worker's: enabling cleared it, and a failed attempt of the deliveries above, still retried in
    // the background, may set it again at any moment.
    const [after] = await listEndpoints();
    expect(after).toEqual({ ...before, updatedAt: expect.any(Number), failingSince: after?.failingSince });
  });

  it('fits a phone: the list, the endpoint with its log and the create dialog scroll only downwards', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(webhooksPage());
    await page.getByRole('row', { name: new RegExp(HOOK_URL) }).waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    await keepScreenshot(page, 'webhooks-phone');

    await page.getByRole('link', { name: HOOK_URL }).click();
    await page
      .getByRole('row', { name: /^webhook\.test delivery/ })
      .first()
      .getByRole('button', { name: 'webhook.test', exact: true })
      .click();
    await page.locator('.attempt-error').first().waitFor();
    await page.waitForLoadState('networkidle');
    expect(await sidewaysOverflow(page)).toBe(0);
    await keepScreenshot(page, 'webhook-delivery-log-phone');

    await page.goto(webhooksPage());
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create endpoint' });
    await dialog.getByLabel('billing-api').waitFor();
    expect(await sidewaysOverflow(dialog)).toBe(0);
    expect(await sidewaysOverflow(dialog.locator('form'))).toBe(0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.setViewportSize(DESKTOP);
  });

  it('refuses a private target with the server’s reason, creating nothing', async () => {
    await page.goto(webhooksPage());
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create endpoint' });
    const errorsBefore = dashboard.pageErrors.length;
    await dialog.getByLabel('URL').fill('http://169.254.169.254/latest');
    await dialog.getByRole('button', { name: 'Create endpoint' }).click();
    // Said at the field it is about, which is marked invalid and described by it.
    const problem = dialog.locator('#webhook-url-problem');
    await problem.getByText(/^It points at a loopback, private or link-local address/).waitFor();
    expect(await dialog.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.getByLabel('URL').getAttribute('aria-describedby')).toContain('webhook-url-problem');
    expect(await dialog.locator('.dialog-body > .error').count()).toBe(0);
    await keepScreenshot(page, 'webhook-url-refused-desktop');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await listEndpoints()).toHaveLength(1);
    // The browser reports the refused request itself; nothing else may have failed.
    const reported = dashboard.pageErrors.splice(errorsBefore);
    expect(reported.filter((error) => !error.includes('status of 400'))).toEqual([]);
  });

  it('deletes the endpoint after confirmation', async () => {
    await page.getByRole('link', { name: HOOK_URL }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete endpoint' })
      .getByRole('button', { name: 'Delete endpoint' })
      .click();
    await page.getByText('No endpoints yet').waitFor();
    expect(await listEndpoints()).toEqual([]);
  });

  it('reported no script errors', () => {
    expect(unexpectedErrors(dashboard)).toEqual([]);
  });
});

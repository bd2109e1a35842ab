import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, keepScreenshot } from './browser.ts';
import {
  chooseRowAction,
  type Dashboard,
  DESKTOP,
  PHONE,
  type SeededApi,
  type SeededWorkspace,
  seedRealisticData,
  sidewaysOverflow,
  signIn,
  startDashboard,
  unexpectedErrors,
} from './harness.ts';

// The list screens (keys of an API, APIs, identities, root keys, namespaces, audit log) on a workspace
// as people have it: sort, totals, status filter, search, URL state, copy buttons, dates, phone cards.
let dashboard: Dashboard;
let seeded: SeededWorkspace;
let page: Page;
let payments: SeededApi;

const url = (path: string) => `${dashboard.server.url}/dashboard${path}`;
const total = () => page.locator('.table-total');
const keyRows = () => page.getByRole('table', { name: 'Keys of this API' }).locator('tbody tr');
const firstRowName = () => keyRows().first().locator('th a').textContent();

describe.skipIf(!chromiumInstalled)('the list tables', () => {
  beforeAll(async () => {
    dashboard = await startDashboard(DESKTOP);
    seeded = await seedRealisticData(dashboard);
    // The seed's expiring keys expire 1.5 s after they are made: the last ones may not have yet.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    payments = seeded.apis[0] as SeededApi;
    page = dashboard.page;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn(dashboard);
  }, 120_000);

  afterAll(async () => {
    await dashboard?.stop();
  });

  it("counts an API's keys and filters them by status as the seed made them", async () => {
    await page.goto(url(`/apis/${payments.id}`));
    await expect.poll(() => total().textContent()).toBe('100 keys');
    const inApi = (keyIds: string[]) => keyIds.filter((keyId) => payments.keyIds.includes(keyId)).length;
    const status = page.getByLabel('Status', { exact: true });
    const cases = [
      ['expired', inApi(seeded.keysByStatus.expired), 'Expired'],
      ['disabled', inApi(seeded.keysByStatus.disabled), 'Disabled'],
      ['out_of_credits', inApi(seeded.keysByStatus.outOfCredits), 'Out of credits'],
      ['low_credits', inApi(seeded.keysByStatus.lowCredits), 'Enabled'],
    ] as const;
    for (const [filter, count, badge] of cases) {
      expect(count).toBeGreaterThan(1);
      await status.selectOption(filter);
      await expect.poll(() => total().textContent()).toBe(`${count} keys`);
      // The rows of the previous filter stay until the new ones arrive: wait for these.
      await expect
        .poll(async () => new Set(await keyRows().locator('.badge').allTextContents()))
        .toEqual(new Set([badge]));
      expect(await keyRows().count()).toBe(count);
    }
    // Low credits says so in the row, and the rule is written where the filter is.
    expect(new Set(await keyRows().locator('.low-credits').allTextContents())).toEqual(new Set([' Low']));
    await page.getByText('Low credits: at most 10% of the refill amount left').waitFor();
    expect(await status.getAttribute('title')).toContain('at most 10 without a refill');
    await status.selectOption('');
    await expect.poll(() => total().textContent()).toBe('100 keys');
    await keepScreenshot(page, 'tables-api-keys-desktop');
  });

  it('sorts by a column across pages, saying so with aria-sort', async () => {
    const nameHeader = page.getByRole('columnheader', { name: 'Key', exact: true });
    expect(await nameHeader.getAttribute('aria-sort')).toBeNull();
    // Newest first by default: the creation time is a sort of its own, not a column.
    expect(await page.getByLabel('Sort by').inputValue()).toBe('-createdAt');
    await nameHeader.getByRole('button').click();
    await expect.poll(() => nameHeader.getAttribute('aria-sort')).toBe('ascending');
    await expect.poll(firstRowName).toBe('payments-key-001');
    await nameHeader.getByRole('button').click();
    await expect.poll(() => nameHeader.getAttribute('aria-sort')).toBe('descending');
    await expect.poll(firstRowName).toBe('payments-key-100');
    // The second page goes on where the first stopped: the server sorted all 100 keys.
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(firstRowName).toBe('payments-key-050');
    await page.getByText('Page 2 of 2').waitFor();
    expect(await total().textContent()).toBe('100 keys');
  });

  it('keeps search, sort and page in the URL, across a reload and Back', async () => {
    expect(new URL(page.url()).searchParams.get('sort')).toBe('-name');
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    await page.reload();
    await expect.poll(firstRowName).toBe('payments-key-050');
    await page.getByText('Page 2 of 2').waitFor();
    await keyRows().first().getByRole('link').first().click();
    await page.getByRole('heading', { level: 1, name: 'payments-key-050' }).waitFor();
    await page.goBack();
    await expect.poll(firstRowName).toBe('payments-key-050');
    expect(await page.getByRole('columnheader', { name: 'Key', exact: true }).getAttribute('aria-sort')).toBe(
      'descending',
    );
    // Back once more: the first page, as it was before "Next page".
    await page.goBack();
    await expect.poll(firstRowName).toBe('payments-key-100');
  });

  it("searches keys by their identity's external id", async () => {
    const owned = await dashboard.v2<{ keyId: string }[]>('apis.listKeys', {
      apiId: payments.id,
      externalId: 'customer-05',
    });
    expect(owned.length).toBeGreaterThan(1);
    await page.getByLabel('Search keys').fill('customer-05');
    await expect.poll(() => total().textContent()).toBe(`${owned.length} keys`);
    const externalIds = await keyRows().locator('td[data-label="Identity"]').allTextContents();
    expect(new Set(externalIds)).toEqual(new Set(['customer-05']));
    expect(new URL(page.url()).searchParams.get('q')).toBe('customer-05');
    await page.reload();
    expect(await page.getByLabel('Search keys').inputValue()).toBe('customer-05');
    await expect.poll(() => total().textContent()).toBe(`${owned.length} keys`);
  });

  it('copies an id with its button, and says so; a row copies its key id from its menu', async () => {
    const copy = page.getByRole('button', { name: `Copy ${payments.id}` });
    // A target of at least 24 px each way (WCAG 2.5.8).
    const box = await copy.boundingBox();
    expect(Math.min(box?.width ?? 0, box?.height ?? 0)).toBeGreaterThanOrEqual(24);
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(payments.id);
    await expect.poll(() => copy.textContent(), { timeout: 5000 }).toBe('Copy');

    const name = (await firstRowName()) ?? '';
    await chooseRowAction(page, name, 'Copy key id');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/^key_/);
  });

  it('shows dates on one line, relative, with the absolute time and its zone on hover', async () => {
    await page.getByLabel('Search keys').fill('');
    await page.getByLabel('Status', { exact: true }).selectOption('expired');
    const expired = keyRows().first().locator('td[data-label="Expires"] time');
    expect(await expired.textContent()).toMatch(/(seconds?|minutes?) ago|^now$/);
    const title = (await expired.getAttribute('title')) ?? '';
    expect(title).toMatch(/\d{4}.* (UTC|GMT[+-]?\d*|[A-Z]{2,5})$/);
    const dateTime = Date.parse((await expired.getAttribute('datetime')) ?? '');
    expect(Math.abs(Date.now() - dateTime)).toBeLessThan(3_600_000);
    // Polled: a refetch may re-render the row between the reads, leaving no box for a moment.
    await expect.poll(async () => (await expired.boundingBox())?.height ?? Number.POSITIVE_INFINITY).toBeLessThan(30);
    await page.getByLabel('Status', { exact: true }).selectOption('');
  });

  it('searches, sorts and counts the APIs, identities, namespaces and root keys', async () => {
    await page.goto(url('/apis'));
    await expect.poll(() => total().textContent()).toBe('3 APIs');
    await page.getByLabel('Search APIs').fill('search');
    await expect.poll(() => total().textContent()).toBe('1 API');
    await page.getByLabel('Search APIs').fill('');
    await expect.poll(() => total().textContent()).toBe('3 APIs');
    const names = () => page.locator('tbody th').allTextContents();
    expect(await names()).toEqual(['internal-tools', 'payments-api', 'search-api']);
    await page.getByRole('columnheader', { name: 'Name' }).getByRole('button').click();
    await expect.poll(names).toEqual(['search-api', 'payments-api', 'internal-tools']);
    await page.getByRole('button', { name: `Copy ${payments.id}` }).waitFor();
    await keepScreenshot(page, 'tables-apis-desktop');

    await page.goto(url('/identities'));
    await expect.poll(() => total().textContent()).toBe('12 identities');
    await page.getByLabel('Search identities').fill('customer-1');
    await expect.poll(() => total().textContent()).toBe('3 identities');
    await page.getByLabel('Search identities').fill('customer-07');
    await expect.poll(() => total().textContent()).toBe('1 identity');
    await page.getByLabel('Search identities').fill('');
    await expect.poll(() => total().textContent()).toBe('12 identities');
    await keepScreenshot(page, 'tables-identities-desktop');

    await page.goto(url('/ratelimits'));
    await expect.poll(() => total().textContent()).toBe('3 namespaces');
    await page.getByLabel('Search namespaces').fill('upl');
    await expect.poll(() => total().textContent()).toBe('1 namespace');
    await page.getByLabel('Search namespaces').fill('');
    await expect.poll(() => total().textContent()).toBe('3 namespaces');
    await keepScreenshot(page, 'tables-namespaces-desktop');

    await dashboard.internal('rootKeys.createRootKey', { name: 'tables-reader', permissions: ['api.*.read_api'] });
    await page.goto(url('/root-keys'));
    await expect.poll(() => total().textContent()).toBe('2 root keys');
    await page.getByLabel('Search root keys').fill('tables-rea');
    await expect.poll(() => total().textContent()).toBe('1 root key');
    await page.getByLabel('Search root keys').fill('');
    await keepScreenshot(page, 'tables-root-keys-desktop');
  });

  it('filters the audit log by actor, action and resource, with root-key names and resource links', async () => {
    const actor = await dashboard.internal<{ key: string; rootKeyId: string }>('rootKeys.createRootKey', {
      name: 'tables-actor',
      permissions: ['api.*.create_api'],
    });
    const created = await fetch(`${dashboard.server.url}/v2/apis.createApi`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${actor.key}` },
      body: JSON.stringify({ name: 'made-by-tables-actor' }),
    });
    const { data } = (await created.json()) as { data: { apiId: string } };

    await page.goto(url('/audit'));
    await expect.poll(() => total().textContent()).toMatch(/^\d+ events$/);
    const rows = page.getByRole('table', { name: /Audit events/ }).locator('tbody tr');
    await page.getByLabel('Root key', { exact: true }).selectOption({ label: 'tables-actor' });
    await expect.poll(() => total().textContent()).toBe('1 event');
    expect(await rows.first().locator('td[data-label="Actor"]').textContent()).toContain('tables-actor');
    expect(await rows.first().locator('[data-event]').getAttribute('data-event')).toBe('apis.createApi');
    await page.getByLabel('Root key', { exact: true }).selectOption('');

    await page.getByLabel('Action').selectOption('apis.createApi');
    await expect.poll(() => total().textContent()).toBe('4 events');
    await keepScreenshot(page, 'tables-audit-log-desktop');
    await rows.getByRole('link', { name: data.apiId }).click();
    await page.getByRole('heading', { level: 1, name: 'made-by-tables-actor' }).waitFor();
    await page.goBack();
    await expect.poll(() => total().textContent()).toBe('4 events');
    await page.getByLabel('Action').selectOption('');

    // A key's events link to the key's page, whose address needs the key's API.
    const keyId = payments.keyIds[0] ?? '';
    await page.getByLabel('Resource id').fill(keyId);
    await expect.poll(() => total().textContent()).toBe('1 event');
    expect(await rows.first().locator('[data-event]').getAttribute('data-event')).toBe('keys.createKey');
    await rows.first().getByRole('link', { name: keyId }).click();
    await page.waitForURL(`**/apis/${payments.id}/keys/${keyId}`);
    await page.getByRole('heading', { level: 1, name: 'payments-key-001' }).waitFor();
  });

  it('fits a phone: cards, no sideways scroll, status, credits and actions on screen', async () => {
    await page.setViewportSize(PHONE);
    const screens = [
      ['api-keys', `/apis/${payments.id}`],
      ['apis', '/apis'],
      ['identities', '/identities'],
      ['namespaces', '/ratelimits'],
      ['root-keys', '/root-keys'],
      ['audit-log', '/audit'],
    ] as const;
    for (const [name, path] of screens) {
      await page.goto(url(path));
      await expect.poll(() => total().textContent()).toMatch(/^\d+ /);
      await page.waitForLoadState('networkidle');
      expect({ name, overflow: await sidewaysOverflow(page) }).toEqual({ name, overflow: 0 });
      await keepScreenshot(page, `tables-${name}-phone`);
    }
    await page.goto(url(`/apis/${payments.id}`));
    await expect.poll(() => keyRows().count()).toBe(50);
    const row = keyRows().first();
    for (const label of ['Status', 'Credits', 'Last used']) {
      const cell = await row.locator(`td[data-label="${label}"]`).boundingBox();
      expect({ label, inside: cell !== null && cell.x >= 0 && cell.x + cell.width <= PHONE.width }).toEqual({
        label,
        inside: true,
      });
    }
    // The headers are hidden on a phone: the sort is a select there.
    await page.getByLabel('Sort by').selectOption({ label: 'Key, ascending' });
    await expect.poll(firstRowName).toBe('payments-key-001');
    await page.goto(url('/root-keys'));
    const actions = page.getByRole('button', { name: 'Actions for tables-reader', exact: true });
    const box = await actions.boundingBox();
    expect(box !== null && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
    await page.setViewportSize(DESKTOP);
  });

  it('reported no unexpected errors', () => {
    expect(unexpectedErrors(dashboard)).toEqual([]);
  });
});

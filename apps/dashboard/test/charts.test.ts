import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, collectPageErrors, keepScreenshot } from './browser.ts';
import {
  axisLabelStretch,
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

// The charts and the pages built around them (Usage, API, identity, namespace, a key's usage), on a
// workspace seeded with an hour of traffic, checked against what the analytics procedures answer.
let dashboard: Dashboard;
let seeded: SeededWorkspace;
let page: Page;
/** A key made by the tests, verified once with tags: the one verification not seeded. */
const made: { keyId?: string; apiId?: string } = {};

const en = new Intl.NumberFormat('en-US');
const percent = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const DAY_MS = 86_400_000;

type Row = Record<string, number | string | boolean | null>;
const verificationRows = (query: string) => dashboard.v2<Row[]>('analytics.getVerifications', { query });
const ratelimitRows = (query: string) => dashboard.v2<Row[]>('analytics.getRatelimits', { query });

/** Verifications per outcome in the last day, as the public analytics procedure counts them. */
async function outcomeCounts(where = 'true'): Promise<Record<string, number>> {
  const rows = await verificationRows(
    `SELECT outcome, COUNT(*) AS total FROM key_verifications_v1 WHERE time >= ${Date.now() - DAY_MS} AND ${where} GROUP BY outcome`,
  );
  return Object.fromEntries(rows.map((row) => [String(row.outcome), Number(row.total)]));
}

/** The summary a chart should show for these counts: "82.3% valid of 4,000 verifications". */
function expectedSummary(counts: Record<string, number>, success: string, word: string, noun: string): string {
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const share = percent.format(((counts[success] ?? 0) / total) * 100);
  return `${share}% ${word} of ${en.format(total)} ${noun}`;
}

const chartOf = (scope: Page | Locator, name: string) => scope.getByRole('img', { name: new RegExp(`^${name}`) });
const summaryOf = (region: Locator) => region.locator('.chart-summary').textContent();

/** Axis labels of every chart on the page keep their shape, and none overlaps the next on its axis. */
async function expectReadableAxes(target: Page): Promise<void> {
  const stretch = await axisLabelStretch(target);
  expect(stretch.length).toBeGreaterThan(0);
  expect(stretch.every((ratio) => ratio > 0.97 && ratio < 1.03)).toBe(true);
  const overlaps = await target.locator('.recharts-xAxis-tick-labels').evaluateAll((axes) =>
    axes.map((axis) => {
      const boxes = [...axis.querySelectorAll('.axis-label')].map((label) => label.getBoundingClientRect());
      return boxes.some((box, index) => index > 0 && box.left < (boxes[index - 1]?.right ?? 0));
    }),
  );
  expect(overlaps.every((overlap) => !overlap)).toBe(true);
}

/** A phone-sized page signed in with the same session, its errors counted with the rest. */
async function openPhonePage(): Promise<Page> {
  const context = await dashboard.browser.newContext({ viewport: PHONE });
  await context.addCookies(await page.context().cookies());
  const phone = await context.newPage();
  phone.setDefaultTimeout(10_000);
  const errors = collectPageErrors(phone);
  phone.on('close', () => {
    dashboard.pageErrors.push(...errors);
    void context.close();
  });
  return phone;
}

describe.skipIf(!chromiumInstalled)('charts in Chromium', () => {
  beforeAll(async () => {
    dashboard = await startDashboard(DESKTOP);
    seeded = await seedRealisticData(dashboard);
    ({ page } = dashboard);
    await signIn(dashboard);
  });

  afterAll(async () => {
    await dashboard?.stop();
  });

  it('charts the seeded hour on Usage: the numbers analytics answers, outcomes in words, exact tooltips', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click();
    const region = page.getByRole('region', { name: 'Verifications by outcome' });
    const chart = chartOf(region, 'Verifications by outcome');
    await chart.waitFor();
    const counts = await outcomeCounts();
    expect(Object.values(counts).reduce((sum, count) => sum + count, 0)).toBe(seeded.verificationEvents);
    const summary = expectedSummary(counts, 'VALID', 'valid', 'verifications');
    expect(await summaryOf(region)).toBe(summary);
    expect(await chart.getAttribute('aria-label')).toBe(`Verifications by outcome: ${summary}`);

    const legend = await region.locator('.legend').textContent();
    for (const [code, words] of [
      ['VALID', 'Valid'],
      ['RATE_LIMITED', 'Rate limited'],
      ['USAGE_EXCEEDED', 'Usage exceeded'],
      ['INSUFFICIENT_PERMISSIONS', 'Insufficient permissions'],
      ['DISABLED', 'Disabled'],
      ['EXPIRED', 'Expired'],
    ] as const) {
      expect(legend).toContain(`${words}: ${en.format(counts[code] ?? 0)}`);
    }
    expect(legend).not.toMatch(/[A-Z]{2,}_/);

    const decisions = page.getByRole('region', { name: 'Rate-limit decisions' });
    const [passed] = await ratelimitRows(
      `SELECT SUM(CASE WHEN passed THEN 1 ELSE 0 END) AS passed, COUNT(*) AS total FROM ratelimits_v1 WHERE time >= ${Date.now() - DAY_MS}`,
    );
    expect(Number(passed?.total)).toBe(seeded.ratelimitEvents);
    expect(await summaryOf(decisions)).toBe(
      expectedSummary(
        { passed: Number(passed?.passed), limited: Number(passed?.total) - Number(passed?.passed) },
        'passed',
        'passed',
        'decisions',
      ),
    );
    expect(await summaryOf(page.getByRole('region', { name: 'Credits spent' }))).toBe(
      `${en.format(counts.VALID ?? 0)} credits spent`,
    );

    // Hovering the tallest bar shows that hour's exact numbers, the same as the chart's table. Not
    // the latest: the seeded hour may just reach into a new one, whose bars are a pixel or less.
    const bars = chart.locator('.recharts-bar-rectangle');
    const heights = await bars.evaluateAll((elements) => elements.map((bar) => bar.getBoundingClientRect().height));
    expect(heights.length).toBeGreaterThan(0);
    await bars.nth(heights.indexOf(Math.max(...heights))).hover();
    const tooltip = region.locator('.chart-tooltip');
    await tooltip.waitFor();
    const time = (await tooltip.locator('.chart-tooltip-time').textContent()) ?? '';
    const tooltipText = (await tooltip.textContent()) ?? '';
    await region.getByText('Show the data as a table').click();
    const row = region.getByRole('row').filter({ has: page.getByRole('rowheader', { name: time, exact: true }) });
    const headers = await region.locator('thead th').allTextContents();
    const cells = await row.locator('td').allTextContents();
    for (const [index, name] of headers.slice(1).entries()) {
      expect(tooltipText).toContain(`${name}: ${cells[index]}`);
    }
    const hourTotal = cells.reduce((sum, cell) => sum + Number(cell.replaceAll(',', '')), 0);
    expect(hourTotal).toBeGreaterThan(0);
    expect(tooltipText).toContain(`Total: ${en.format(hourTotal)}`);
    await region.getByText('Show the data as a table').click();

    await expectReadableAxes(page);
    expect(await page.locator('.chart-plot .recharts-cartesian-grid-horizontal line').count()).toBeGreaterThan(0);
    await keepScreenshot(page, 'charts-usage-desktop');
  });

  it('moves the time range with the clock: a range picker, Refresh and Live', async () => {
    const window = page.getByTestId('time-window');
    const region = page.getByRole('region', { name: 'Verifications by outcome' });
    const before = await window.textContent();
    expect(before).toMatch(/^Last 24 hours up to /);

    await page.getByLabel('Time range').selectOption({ label: 'Last 7 days' });
    await expect.poll(() => window.textContent()).toMatch(/^Last 7 days up to /);
    await expect.poll(() => region.locator('tbody tr').count(), { timeout: 10_000 }).toBe(7 * 24);
    await expect.poll(() => summaryOf(region)).toMatch(`of ${en.format(seeded.verificationEvents)} verifications`);

    // A verification made now shows after a refresh, and the range then ends later.
    const apiId = seeded.apis[0]?.id ?? '';
    const created = await dashboard.v2<{ keyId: string; key: string }>('keys.createKey', {
      apiId,
      name: 'charts-live-key',
      externalId: seeded.identities[0]?.externalId,
    });
    Object.assign(made, { keyId: created.keyId, apiId });
    const verified = await dashboard.v2<{ code: string }>('keys.verifyKey', {
      key: created.key,
      tags: ['path=/v1/charts', 'region=eu'],
    });
    expect(verified.code).toBe('VALID');
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return summaryOf(region);
        },
        { timeout: 15_000, interval: 1000 },
      )
      .toMatch(`of ${en.format(seeded.verificationEvents + 1)} verifications`);
    expect(await window.textContent()).not.toBe(before);

    await page.getByLabel('Live').check();
    await expect.poll(() => window.textContent()).toMatch(/updated every 10 s$/);
    await page.getByLabel('Live').uncheck();
    await page.getByLabel('Time range').selectOption({ label: 'Last 24 hours' });
  });

  it('waits out a "retry in a few seconds" refusal as it says, then charts, with no error shown', async () => {
    // The workspace's analytics slots held by the queries of a filter just changed: the server's
    // own 429 for the first batch of chart queries, the real answers after it.
    const refusal = {
      message: 'This workspace already has 2 analytics queries running, as many as it may run at once.',
      code: -32029,
      data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429, type: 'user/too_many_requests/query_concurrency_exceeded' },
    };
    let asked = 0;
    await page.route('**/trpc/analytics.**', async (route) => {
      asked++;
      if (asked > 1) return route.continue();
      const procedures = new URL(route.request().url()).pathname.split('/').pop()?.split(',') ?? [];
      return route.fulfill({
        status: 429,
        contentType: 'application/json',
        body: JSON.stringify(procedures.map(() => ({ error: refusal }))),
      });
    });
    const region = page.getByRole('region', { name: 'Verifications by outcome' });
    await page.getByLabel('Time range').selectOption({ label: 'Last hour' });
    // The hour's 60 minute buckets, charted once the retried answer came.
    await expect.poll(() => region.locator('tbody tr').count()).toBe(60);
    expect(await summaryOf(region)).toMatch(/valid of [\d,]+ verifications$/);
    expect(asked).toBeGreaterThan(1);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.unroute('**/trpc/analytics.**');
    await page.getByLabel('Time range').selectOption({ label: 'Last 24 hours' });
  });

  it('folds the filters away on a phone, keeps the axis labels readable and the page from scrolling sideways', async () => {
    const phone = await openPhonePage();
    await phone.goto(`${dashboard.server.url}/dashboard/usage`);
    await chartOf(phone, 'Verifications by outcome').waitFor();
    const filters = phone.locator('details.filter-disclosure');
    expect(await filters.evaluate((details) => (details as HTMLDetailsElement).open)).toBe(false);
    expect(await phone.getByLabel('API', { exact: true }).isVisible()).toBe(false);
    await expectReadableAxes(phone);
    expect(await sidewaysOverflow(phone)).toBe(0);
    await keepScreenshot(phone, 'charts-usage-phone');
    await filters.locator('summary').click();
    expect(await phone.getByLabel('API', { exact: true }).isVisible()).toBe(true);
    expect(await sidewaysOverflow(phone)).toBe(0);
    await phone.close();

    // On a desktop they are open from the start.
    expect(
      await page.locator('details.filter-disclosure').evaluate((details) => (details as HTMLDetailsElement).open),
    ).toBe(true);
  });

  it('opens an API on its keys, with the key count and a usage sparkline; its settings are a tab', async () => {
    const api = seeded.apis[1];
    if (!api) throw new Error('no seeded API');
    await page.goto(`${dashboard.server.url}/dashboard/apis/${api.id}`);
    await page.getByRole('heading', { level: 1, name: api.name }).waitFor();
    const keysTab = page.getByRole('tab', { name: 'Keys' });
    expect(await keysTab.getAttribute('aria-selected')).toBe('true');
    await page
      .getByRole('tabpanel', { name: 'Keys' })
      .getByRole('link', { name: /^search-key-/ })
      .first()
      .waitFor();
    await expect.poll(() => page.getByTestId('key-count').textContent()).toBe(`${api.keyIds.length} keys`);

    const counts = await outcomeCounts(`api_id = '${api.id}'`);
    const sparkline = page.getByRole('img', { name: /^Verifications over the last 24 hours/ });
    await sparkline.waitFor();
    expect(await sparkline.getAttribute('aria-label')).toBe(
      `Verifications over the last 24 hours: ${expectedSummary(counts, 'VALID', 'valid', 'verifications')} in the last 24 hours`,
    );
    expect(await page.getByRole('region', { name: 'Settings', exact: true }).isVisible()).toBe(false);
    await keepScreenshot(page, 'charts-api-desktop');

    await page.getByRole('tab', { name: 'Settings' }).click();
    const settings = page.getByRole('region', { name: 'Settings', exact: true });
    await settings.getByLabel('Default key prefix').waitFor();
    expect(await page.getByRole('tabpanel', { name: 'Keys' }).isVisible()).toBe(false);
    // Arrow keys move between the tabs.
    await page.getByRole('tab', { name: 'Settings' }).press('ArrowLeft');
    expect(await keysTab.getAttribute('aria-selected')).toBe('true');

    const phone = await openPhonePage();
    await phone.goto(`${dashboard.server.url}/dashboard/apis/${api.id}`);
    await phone
      .getByRole('tabpanel', { name: 'Keys' })
      .getByRole('link', { name: /^search-key-/ })
      .first()
      .waitFor();
    await phone.getByRole('img', { name: /^Verifications over the last 24 hours/ }).waitFor();
    expect(await sidewaysOverflow(phone)).toBe(0);
    await keepScreenshot(phone, 'charts-api-phone');
    await phone.close();
  });

  it("shows an identity's keys and its usage", async () => {
    const identity = seeded.identities[0];
    if (!identity) throw new Error('no seeded identity');
    const expected: string[] = [];
    for (const api of seeded.apis) {
      const listed = await dashboard.v2<{ keyId: string }[]>('apis.listKeys', {
        apiId: api.id,
        externalId: identity.externalId,
      });
      expected.push(...listed.map((key) => key.keyId));
    }
    expect(expected).toContain(made.keyId);
    await page.goto(`${dashboard.server.url}/dashboard/identities/${identity.id}`);
    await page.getByRole('heading', { level: 1, name: identity.externalId }).waitFor();
    const keys = page.getByRole('region', { name: 'Keys', exact: true });
    await keys.getByText(`${expected.length} keys`, { exact: true }).waitFor();
    const links = await keys
      .locator('tbody th a')
      .evaluateAll((anchors) =>
        anchors.map((anchor) => /\/keys\/(key_\w+)$/.exec((anchor as HTMLAnchorElement).href)?.[1]),
      );
    expect(links.sort()).toEqual([...expected].sort());
    await keys.getByRole('link', { name: 'charts-live-key' }).waitFor();

    // The seeded events carry no identity; the one verification the tests made does.
    const usage = page.getByRole('region', { name: 'Usage', exact: true });
    await chartOf(usage, 'Usage').waitFor();
    expect(await summaryOf(usage)).toBe('100.0% valid of 1 verification');
    await keepScreenshot(page, 'charts-identity-desktop');

    const phone = await openPhonePage();
    await phone.goto(`${dashboard.server.url}/dashboard/identities/${identity.id}`);
    await chartOf(phone.getByRole('region', { name: 'Usage', exact: true }), 'Usage').waitFor();
    await phone
      .getByRole('region', { name: 'Keys', exact: true })
      .getByRole('link', { name: 'charts-live-key' })
      .waitFor();
    expect(await sidewaysOverflow(phone)).toBe(0);
    await keepScreenshot(phone, 'charts-identity-phone');
    await phone.close();
  });

  it('shows a namespace by its name, with its overrides and its decisions over time, by id or by name', async () => {
    const namespace = seeded.namespaces[0];
    if (!namespace) throw new Error('no seeded namespace');
    const [decided] = await ratelimitRows(
      `SELECT SUM(CASE WHEN passed THEN 1 ELSE 0 END) AS passed, COUNT(*) AS total FROM ratelimits_v1 WHERE time >= ${Date.now() - DAY_MS} AND namespace_id = '${namespace.id}'`,
    );
    const total = Number(decided?.total);
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThan(seeded.ratelimitEvents);
    const summary = expectedSummary(
      { passed: Number(decided?.passed), limited: total - Number(decided?.passed) },
      'passed',
      'passed',
      'decisions',
    );

    for (const reference of [namespace.id, namespace.name]) {
      await page.goto(`${dashboard.server.url}/dashboard/ratelimits/${reference}`);
      await page.getByRole('heading', { level: 1, name: namespace.name }).waitFor();
      const overrides = page.getByRole('region', { name: 'Overrides' });
      for (const identifier of ['customer-01', 'customer-02']) {
        await overrides.getByRole('row').filter({ hasText: identifier }).getByRole('cell', { name: '1,000' }).waitFor();
      }
      const decisions = page.getByRole('region', { name: 'Decisions' });
      await chartOf(decisions, 'Decisions').waitFor();
      expect(await summaryOf(decisions)).toBe(summary);
      expect(await decisions.locator('.legend').textContent()).toMatch(/^Passed: [\d,]+Limited: [\d,]+$/);
    }
    await expectReadableAxes(page);
    await keepScreenshot(page, 'charts-namespace-desktop');

    const phone = await openPhonePage();
    await phone.goto(`${dashboard.server.url}/dashboard/ratelimits/${namespace.id}`);
    await chartOf(phone.getByRole('region', { name: 'Decisions' }), 'Decisions').waitFor();
    await expectReadableAxes(phone);
    expect(await sidewaysOverflow(phone)).toBe(0);
    await keepScreenshot(phone, 'charts-namespace-phone');
    await phone.close();
  });

  it("shows a key's usage and its last verifications, with their tags, on the key page", async () => {
    await page.goto(`${dashboard.server.url}/dashboard/apis/${made.apiId}/keys/${made.keyId}`);
    const usage = page.getByRole('region', { name: 'Usage of this key' });
    await chartOf(usage, 'Usage of this key').waitFor();
    expect(await summaryOf(usage)).toBe('100.0% valid of 1 verification');
    const last = page.getByRole('region', { name: 'Last verifications' });
    const row = last.getByRole('row').filter({ hasText: 'Valid' });
    await row.waitFor();
    expect(await row.locator('td[data-label="Tags"] li').allTextContents()).toEqual(['path=/v1/charts', 'region=eu']);

    // A seeded key: its rows are those keys.listVerifications answers, outcomes in words.
    const seededKey = seeded.apis[0]?.keyIds[5] ?? '';
    const answered = await dashboard.internal<{ data: { outcome: string; tags: string[] }[] }>(
      'keys.listVerifications',
      { keyId: seededKey, limit: 20 },
    );
    expect(answered.data.length).toBeGreaterThan(0);
    await page.goto(`${dashboard.server.url}/dashboard/apis/${made.apiId}/keys/${seededKey}`);
    await expect.poll(() => last.locator('tbody tr').count()).toBe(answered.data.length);
    const words: Record<string, string> = {
      VALID: 'Valid',
      RATE_LIMITED: 'Rate limited',
      USAGE_EXCEEDED: 'Usage exceeded',
      INSUFFICIENT_PERMISSIONS: 'Insufficient permissions',
      DISABLED: 'Disabled',
      EXPIRED: 'Expired',
    };
    expect(await last.locator('td[data-label="Outcome"]').allTextContents()).toEqual(
      answered.data.map((event) => words[event.outcome]),
    );
  });

  it('reported no script errors', () => {
    expect(unexpectedErrors(dashboard)).toEqual([]);
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { chromiumInstalled, collectPageErrors, keepScreenshot } from './browser.ts';
import {
  type Dashboard,
  DESKTOP,
  EXPECTED_FAILURES,
  PHONE,
  type ReviewWorkspace,
  seedReviewWorkspace,
  sidewaysOverflow,
  signIn,
  startDashboard,
  unexpectedErrors,
} from './harness.ts';

// The dashboard as it was reviewed (issue 41): a workspace of 4 APIs, 206 keys in every state, 61
// identities and a month of traffic, at 1440, 1280 and 390 px wide, in the light and the dark theme.
let dashboard: Dashboard;
let review: ReviewWorkspace;
let page: Page;
let browser: Browser;
const LAPTOP = { width: 1280, height: 800 };
const url = (path: string) => `${dashboard.server.url}/dashboard${path}`;
const payments = () => review.apis[0] ?? { id: '', name: '', keyIds: [] };
const keyRows = () => page.getByRole('table', { name: 'Keys of this API' }).locator('tbody tr');

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface ContrastProblem {
  target: string;
  summary: string;
}

/**
 * axe-core's WCAG 2.x A and AA rules, colour contrast among them, on the page as it is: what fails,
 * and where. (The rule checks text against what is drawn behind it; it passes on every node it can
 * judge, and the test fails on any it cannot.) `contrastOnly` runs that rule alone: what a theme
 * changes, for a screen already checked in full in the other theme.
 */
async function accessibilityProblems(target: Page, contrastOnly = false): Promise<ContrastProblem[]> {
  // An in-app navigation keeps the window, and axe in it: parsed once per page.
  const loaded = await target.evaluate(() => 'axe' in window);
  if (!loaded) await target.evaluate(AXE_SOURCE);
  return target.evaluate(async (onlyContrast) => {
    const axe = (window as unknown as { axe: typeof import('axe-core') }).axe;
    // Charts are images (role="img") named with their numbers, which their tables hold as text.
    const result = await axe.run(
      { exclude: [['[role="img"]']] },
      {
        runOnly: onlyContrast
          ? { type: 'rule', values: ['color-contrast'] }
          : { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
      },
    );
    // Text axe could not judge counts as failing, unless it is no text to judge (a dash, a digit).
    const notText = /too short to determine|only non-text characters/;
    const contrastUnjudged = result.incomplete
      .filter((rule) => rule.id === 'color-contrast')
      .map((rule) => ({ ...rule, nodes: rule.nodes.filter((node) => !notText.test(node.failureSummary ?? '')) }));
    return [...result.violations, ...contrastUnjudged].flatMap((violation) =>
      violation.nodes.map((node) => ({
        target: `${violation.id}: ${node.target.join(' ')}`,
        summary: node.failureSummary ?? '',
      })),
    );
  }, contrastOnly);
}

/** How many requests a page has under way, counted as they start and end. */
function trackRequests(target: Page): () => number {
  let open = 0;
  target.on('request', () => open++);
  target.on('requestfinished', () => open--);
  target.on('requestfailed', () => open--);
  return () => open;
}

/** After a navigation inside the app: its heading shown, no request under way, no placeholder left. */
async function settleInApp(target: Page, inFlight: () => number): Promise<void> {
  await target.locator('main h1').first().waitFor();
  await expect.poll(async () => inFlight() === 0 && (await target.locator('.skeleton').count()) === 0).toBe(true);
  // A request answered may start the next (a page of a list): settled twice in a row.
  await target.waitForTimeout(150);
  await expect.poll(async () => inFlight() === 0 && (await target.locator('.skeleton').count()) === 0).toBe(true);
}

/** Waits for a screen to settle: its heading, its requests, its skeletons gone. */
async function settle(target: Page): Promise<void> {
  await target.locator('main h1').first().waitFor();
  await target.waitForLoadState('networkidle');
  await expect.poll(() => target.locator('.skeleton').count()).toBe(0);
}

describe.skipIf(!chromiumInstalled)(
  'the dashboard as reviewed: 4 APIs, 206 keys, 61 identities, a month of traffic',
  () => {
    beforeAll(async () => {
      dashboard = await startDashboard(DESKTOP);
      review = await seedReviewWorkspace(dashboard);
      ({ page, browser } = dashboard);
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await signIn(dashboard);
    }, 180_000);

    afterAll(async () => {
      await dashboard?.stop();
    });

    it('fits the keys table at 1440 and 1280 px: every column readable, each name on one line, nothing clipped', async () => {
      onTestFinished(() => page.setViewportSize(DESKTOP));
      for (const viewport of [DESKTOP, LAPTOP]) {
        await page.setViewportSize(viewport);
        await page.goto(url(`/apis/${payments().id}`));
        await expect.poll(() => keyRows().count()).toBe(50);
        await expect.poll(() => page.locator('.mini-sparkline').count()).toBe(50);
        const layout = await page.getByRole('table', { name: 'Keys of this API' }).evaluate((table) => {
          const frame = table.parentElement as HTMLElement;
          const clipped = (element: Element) => element.scrollWidth > element.clientWidth + 1;
          return {
            // The table is no wider than its frame: nothing scrolls or hides sideways.
            overflow: frame.scrollWidth - frame.clientWidth,
            headers: [...table.querySelectorAll('thead th')].map((th) => th.textContent?.trim() ?? ''),
            clippedHeaders: [...table.querySelectorAll('thead th')].filter(clipped).map((th) => th.textContent),
            // The columns of values: each cell's own text fits it (the key's name may end in an ellipsis).
            clippedCells: [...table.querySelectorAll('tbody td')]
              .filter((td) =>
                [...td.querySelectorAll('*')].some(
                  (child) => clipped(child) && !child.matches('a.truncate, .truncate'),
                ),
              )
              .map((td) => `${td.getAttribute('data-label')}: ${td.textContent}`),
            rowHeights: [...table.querySelectorAll('tbody tr')].map((row) => row.getBoundingClientRect().height),
            nameLines: [...table.querySelectorAll('tbody th a')].map((link) => link.getClientRects().length),
          };
        });
        expect({ viewport, overflow: layout.overflow }).toEqual({ viewport, overflow: 0 });
        expect(layout.headers).toEqual([
          '',
          'Key',
          'Status',
          'Identity',
          'Credits',
          'Usage, 30 days',
          'Last used',
          'Expires',
          'Actions',
        ]);
        expect(layout.clippedHeaders).toEqual([]);
        expect(layout.clippedCells).toEqual([]);
        // Dense: a row is two lines at most, each name one.
        expect(Math.max(...layout.rowHeights)).toBeLessThan(56);
        expect(new Set(layout.nameLines)).toEqual(new Set([1]));
        // Every button of the table (sort headers, row menus) is a target of 24 px or more each way (WCAG 2.5.8).
        const targets = await page
          .getByRole('table', { name: 'Keys of this API' })
          .getByRole('button')
          .evaluateAll((buttons) =>
            buttons.map((button) => {
              const box = button.getBoundingClientRect();
              return Math.min(box.width, box.height);
            }),
          );
        expect(Math.min(...targets)).toBeGreaterThanOrEqual(24);
        // The long names end in an ellipsis and are whole in their title.
        const long = page.getByRole('link', { name: 'payments-production-backend-service-074' });
        expect(await long.getAttribute('title')).toBe('payments-production-backend-service-074');
        await keepScreenshot(page, `review-keys-${viewport.width}`);
      }
      await page.setViewportSize(DESKTOP);
    });

    it('selects keys for a bulk disable and enable, and asks before deleting them by name', async () => {
      await page.goto(url(`/apis/${payments().id}`));
      await expect.poll(() => keyRows().count()).toBe(50);
      const names = (await keyRows().locator('th a').allTextContents()).slice(0, 3);
      for (const name of names) await page.getByRole('checkbox', { name: `Select ${name}` }).check();
      const bulk = page.getByRole('toolbar', { name: 'Selected keys' });
      await bulk.getByText('3 keys selected').waitFor();
      await bulk.getByRole('button', { name: 'Disable' }).click();
      await page.getByText('Disabled 3 keys.').waitFor();
      for (const name of names) {
        await expect.poll(() => keyRows().filter({ hasText: name }).locator('.badge').textContent()).toBe('Disabled');
      }
      for (const name of names) await page.getByRole('checkbox', { name: `Select ${name}` }).check();
      await bulk.getByRole('button', { name: 'Enable' }).click();
      await page.getByText('Enabled 3 keys.').waitFor();
      await page.getByRole('checkbox', { name: 'Select every key on this page' }).check();
      await bulk.getByText('50 keys selected').waitFor();
      await bulk.getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete 50 keys' });
      await confirm.getByText(names[0] ?? '-').waitFor();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await bulk.getByRole('button', { name: 'Clear selection' }).click();
      expect(await bulk.count()).toBe(0);
    });

    it('lists keys on a phone as compact rows that open the key: the API page a few screens long', async () => {
      await page.setViewportSize(PHONE);
      onTestFinished(() => page.setViewportSize(DESKTOP));
      await page.goto(url(`/apis/${payments().id}`));
      await expect.poll(() => keyRows().count()).toBe(50);
      await page.waitForLoadState('networkidle');
      const heights = await keyRows().evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().height));
      expect(Math.max(...heights)).toBeLessThan(80);
      const pageHeight = await page.evaluate(() => document.documentElement.scrollHeight);
      expect(pageHeight).toBeLessThan(6000);
      expect(await sidewaysOverflow(page)).toBe(0);
      await keepScreenshot(page, 'review-keys-390');
      const first = keyRows().first();
      const name = (await first.locator('th a').textContent()) ?? '';
      // Anywhere on the row opens the key: a tap on its last-used time, under the name's link.
      const box = await first.locator('td[data-label="Last used"]').boundingBox();
      await page.mouse.click((box?.x ?? 0) + 5, (box?.y ?? 0) + 5);
      await page.getByRole('heading', { level: 1, name }).waitFor();
      await settle(page);
      expect(await sidewaysOverflow(page)).toBe(0);
      await keepScreenshot(page, 'review-key-page-390');
      await page.setViewportSize(DESKTOP);
    });

    it('names a key refused by its rate limit as rate limited, at the top of its page, with the share and the limit', async () => {
      const { apiId, keyId, name } = review.rateLimitedKey;
      await page.goto(url(`/apis/${apiId}/keys/${keyId}`));
      await page.getByRole('heading', { level: 1, name }).waitFor();
      await expect.poll(() => page.locator('.title-with-status .badge').textContent()).toBe('Rate limited');
      const refusals = page.getByRole('region', { name: 'What refuses this key' });
      await refusals.getByText(/^Rate limited\.$/).waitFor();
      expect(await refusals.textContent()).toMatch(
        /8\d% of its \d+ verifications in the last hour were refused by a rate limit \(requests: 10 per 1 min\)/,
      );
      // Every part of the key is at the top, above its usage.
      for (const part of ['Key', 'Credits', 'Rate limits', 'Expiry', 'Identity', 'Roles', 'Permissions', 'Meta']) {
        const card = page.getByRole('region', { name: part, exact: true });
        const box = await card.boundingBox();
        expect({ part, top: (box?.y ?? 9999) < 900 }).toEqual({ part, top: true });
      }
      await settle(page);
      await keepScreenshot(page, 'review-rate-limited-key-1440');

      // A key expiring in three days says so too.
      const expiring = review.expiringKey;
      await page.goto(url(`/apis/${expiring.apiId}/keys/${expiring.keyId}`));
      await expect.poll(() => page.locator('.title-with-status .badge').textContent()).toBe('Expires soon');
    });

    it('writes numbers as people read them and times with their zone; offers Reveal only where a key can be revealed', async () => {
      const { apiId, keyId, remaining } = review.richKey;
      await page.goto(url(`/apis/${apiId}/keys/${keyId}`));
      const credits = page.getByTestId('credits-remaining');
      await expect.poll(() => credits.textContent()).toBe(new Intl.NumberFormat('en-US').format(remaining));
      // The key page's expiry and creation name their zone on hover or in full.
      expect(
        await page.getByRole('region', { name: 'Key', exact: true }).locator('dd[title]').first().getAttribute('title'),
      ).toMatch(/ (UTC|GMT[+-]?\d*)$/);
      // Keys of an API that stores none encrypted cannot be revealed: no button says otherwise.
      await page.getByRole('button', { name: 'Delete key' }).waitFor();
      expect(await page.getByRole('button', { name: 'Reveal key' }).count()).toBe(0);
      // In the table, the same balance is short, the whole number in its title.
      await page.goto(url(`/apis/${apiId}?q=${encodeURIComponent(review.richKey.name)}`));
      const cell = keyRows().first().locator('td[data-label="Credits"] [title]');
      await expect.poll(() => cell.getAttribute('title')).toContain('9,007,199,234,740,991 credits left');
      expect((await cell.textContent())?.length).toBeLessThan(12);
      // Distinct colours for refusals told apart in the charts: a rate limit and spent credits.
      await page.goto(url('/usage'));
      const swatch = (label: string) =>
        page
          .getByRole('region', { name: 'Verifications by outcome' })
          .locator('.legend li', { hasText: label })
          .locator('.swatch')
          .evaluate((element) => getComputedStyle(element).backgroundColor);
      const hue = (rgb: string) => {
        const [r = 0, g = 0, b = 0] = (rgb.match(/\d+/g) ?? []).map((part) => Number(part) / 255);
        const max = Math.max(r, g, b);
        const min = Math.min(r, g, b);
        const d = max - min;
        const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
        return (h * 60 + 360) % 360;
      };
      const apart = Math.abs(hue(await swatch('Rate limited')) - hue(await swatch('Usage exceeded')));
      expect(Math.min(apart, 360 - apart)).toBeGreaterThan(60);
    });

    it('keeps the API as the usage context, breaks it down by key, identity and tag, and lists verifications beyond 20', async () => {
      await page.goto(url(`/apis/${payments().id}`));
      await page.getByRole('link', { name: 'See all usage of this API' }).click();
      await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
      await expect.poll(() => page.getByLabel('API', { exact: true }).inputValue()).toBe(payments().id);
      await page.getByLabel('Time range', { exact: true }).selectOption({ label: 'Last 30 days' });
      expect(new URL(page.url()).searchParams.get('range')).toBe('month');

      // Ordered by failures, the key refused by its limit leads, by its name.
      const breakdowns = page.getByRole('region', { name: 'Top keys, identities and tags' });
      await breakdowns.getByRole('button', { name: 'By failures' }).click();
      const topKeys = breakdowns.getByRole('table', { name: 'Top keys by failures' });
      await expect.poll(() => topKeys.locator('tbody th').first().textContent()).toBe(review.rateLimitedKey.name);
      await expect
        .poll(() => breakdowns.getByRole('table', { name: 'Top identities by failures' }).locator('tbody tr').count())
        .toBe(10);
      await expect
        .poll(() => breakdowns.getByRole('table', { name: 'Top tags by failures' }).locator('tbody tr').count())
        .toBe(6);

      // The log: filtered by outcome and a tag from the breakdown, 50 at a time, older pages after.
      await page.getByLabel('Outcome', { exact: true }).selectOption({ label: 'Rate limited' });
      const log = page.getByRole('region', { name: 'Verifications', exact: true });
      const rows = log.locator('tbody tr');
      await expect
        .poll(async () => new Set(await log.locator('td[data-label="Outcome"]').allTextContents()))
        .toEqual(new Set(['Rate limited']));
      expect(await rows.count()).toBe(50);
      await log.getByRole('button', { name: 'Older' }).click();
      await log.getByText('Page 2').waitFor();
      await expect.poll(() => rows.count()).toBeGreaterThan(0);
      await breakdowns.getByRole('button', { name: 'path=/v1/refunds' }).first().click();
      await expect.poll(() => new URL(page.url()).searchParams.get('tag')).toBe('path=/v1/refunds');
      await expect
        .poll(async () =>
          new Set(await log.locator('td[data-label="Tags"] li').allTextContents()).has('path=/v1/refunds'),
        )
        .toBe(true);
      await log.getByLabel('Search verifications').fill('req_review2');
      await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('req_review2');

      // Every filter survives a reload.
      const before = new URL(page.url()).search;
      await page.reload();
      await expect.poll(() => page.getByLabel('Outcome', { exact: true }).inputValue()).toBe('RATE_LIMITED');
      expect(await page.getByLabel('Tag', { exact: true }).inputValue()).toBe('path=/v1/refunds');
      expect(await page.getByLabel('Time range', { exact: true }).inputValue()).toBe('month');
      expect(await log.getByLabel('Search verifications').inputValue()).toBe('req_review2');
      expect(new URL(page.url()).search).toBe(before);
      await settle(page);
      await keepScreenshot(page, 'review-usage-1440');
    });

    it('keeps the create-key footer in view at every width, in sections, a new limit named', async () => {
      onTestFinished(() => page.setViewportSize(DESKTOP));
      for (const viewport of [DESKTOP, LAPTOP, PHONE]) {
        await page.setViewportSize(viewport);
        await page.goto(url(`/apis/${payments().id}`));
        // Clicked once the screen has loaded: a click on a button that a render then replaces is lost.
        await settle(page);
        await page.getByRole('button', { name: 'Create key' }).first().click();
        const dialog = page.getByRole('dialog', { name: 'Create key' });
        for (const section of ['Key', 'Owner', 'Limits', 'Expiry', 'Access', 'Meta']) {
          await dialog.getByRole('region', { name: section, exact: true }).waitFor();
        }
        await dialog.getByRole('button', { name: 'Add limit' }).click();
        expect(await dialog.getByLabel('Limit name').inputValue()).toBe('requests');
        await dialog.getByRole('button', { name: 'Add limit' }).click();
        expect(await dialog.getByLabel('Limit name').nth(1).inputValue()).toBe('requests-2');
        // Scrolled to the end of its fields, the Create button is where it was: in view.
        await dialog.locator('.dialog-body').evaluate((body) => body.scrollTo(0, body.scrollHeight));
        const create = await dialog.getByRole('button', { name: 'Create', exact: true }).boundingBox();
        expect(create && create.y >= 0 && create.y + create.height <= viewport.height).toBe(true);
        expect(await sidewaysOverflow(dialog.locator('.dialog-body'))).toBe(0);
        await keepScreenshot(page, `review-create-key-${viewport.width}`);
        await dialog.getByRole('button', { name: 'Cancel' }).click();
      }
      await page.setViewportSize(DESKTOP);
    });

    it('writes an audit entry as a sentence with names, before and after, actor and address; filters by date; exports CSV', async () => {
      const { apiId, keyId } = review.expiringKey;
      await page.goto(url(`/apis/${apiId}/keys/${keyId}`));
      await page.getByRole('button', { name: 'Rename key' }).click();
      await page.getByRole('dialog').getByLabel('Key name').fill('payments-renamed-for-audit');
      await page.getByRole('dialog').getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'payments-renamed-for-audit' }).waitFor();

      await page.goto(url(`/audit?resource=${keyId}`));
      const entry = page
        .getByRole('table', { name: /Audit events/ })
        .locator('tbody tr')
        .first();
      const sentence = entry.locator('.audit-sentence');
      await expect.poll(() => sentence.textContent()).toBe('bootstrap changed key “payments-renamed-for-audit”:');
      const change = entry.locator('.audit-changes li');
      expect(await change.textContent()).toBe('name “payments-key-008” → changed to  “payments-renamed-for-audit”');
      expect(await change.locator('del').textContent()).toBe('“payments-key-008”');
      expect(await change.locator('ins').textContent()).toBe('“payments-renamed-for-audit”');
      expect(await entry.locator('td[data-label="Actor"]').textContent()).toMatch(/^bootstrapfrom 127\.0\.0\.1$/);
      await keepScreenshot(page, 'review-audit-1440');

      // A date range: today keeps it, a day long past keeps nothing.
      const today = new Date();
      const day = (date: Date) =>
        `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
      await page.getByLabel('From').fill(day(today));
      await expect.poll(() => page.locator('.table-total').textContent()).toBe('2 events');
      await page.getByLabel('From').fill('2020-01-01');
      await page.getByLabel('To (included)').fill('2020-01-02');
      await page.getByText('No change matches these filters.').waitFor();
      await page.getByLabel('To (included)').fill('');
      await page.getByLabel('From').fill(day(today));

      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV' }).click();
      const csv = readFileSync((await (await download).path()) ?? '', 'utf8').split('\r\n');
      expect(csv[0]).toBe(
        'time,actor,actor_root_key_id,actor_user_id,client_address,event,description,changes,resources',
      );
      expect(csv).toHaveLength(4);
      expect(csv[2]).toContain(
        '"bootstrap changed key “payments-renamed-for-audit”: name from “payments-key-008” to “payments-renamed-for-audit”."',
      );
      expect(csv[2]).toContain(`"keyId=${keyId}"`);
      await page.getByText('Exported 2 events.').waitFor();
    });

    it('asks before leaving a form with edits, and lets go once they are saved or given up', async () => {
      await page.goto(url(`/apis/${payments().id}?tab=settings`));
      await page.getByLabel('Default key prefix').fill('changed');
      const asked: string[] = [];
      page.once('dialog', (dialog) => {
        asked.push(dialog.message());
        void dialog.dismiss();
      });
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Identities', exact: true })
        .click();
      await expect.poll(() => asked).toEqual(['You have changes that are not saved. Leave this page and lose them?']);
      expect(new URL(page.url()).pathname).toBe(`/dashboard/apis/${payments().id}`);
      expect(await page.getByLabel('Default key prefix').inputValue()).toBe('changed');
      await page.getByRole('button', { name: 'Discard changes' }).click();
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Identities', exact: true })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor();
    });

    it('follows the system theme, switches by the menu, keeps every screen readable in both (axe: contrast and WCAG AA), titles each route', async () => {
      const identity = review.identities[0] ?? { id: '', externalId: '' };
      const key = review.rateLimitedKey;
      const { namespaceId } = await dashboard.internal<{ namespaceId: string }>('ratelimit.createNamespace', {
        name: 'logins',
      });
      // Every screen, with the title the browser shows for it.
      const screens: [string, string][] = [
        ['/getting-started', 'Get started · Keyplane'],
        ['/apis', 'APIs · Keyplane'],
        [`/apis/${payments().id}`, 'Keys · payments-api · Keyplane'],
        [`/apis/${payments().id}?tab=settings`, 'Settings · payments-api · Keyplane'],
        [`/apis/${key.apiId}/keys/${key.keyId}`, `${key.name} · payments-api · Keyplane`],
        ['/identities', 'Identities · Keyplane'],
        [`/identities/${identity.id}`, `${identity.externalId} · Identities · Keyplane`],
        ['/roles', 'Roles & permissions · Keyplane'],
        ['/ratelimits', 'Rate limits · Keyplane'],
        [`/ratelimits/${namespaceId}`, 'logins · Rate limits · Keyplane'],
        ['/usage?range=month', 'Usage · Keyplane'],
        ['/webhooks', 'Webhooks · Keyplane'],
        ['/audit', 'Audit log · Keyplane'],
        ['/root-keys', 'Root keys · Keyplane'],
        ['/settings', 'Settings · Keyplane'],
        ['/no-such-page', 'Page not found · Keyplane'],
      ];
      expect(new Set(screens.map(([, title]) => title)).size).toBe(screens.length);
      // A browser whose system is dark gets the dark theme without being asked.
      const context = await browser.newContext({ viewport: DESKTOP, colorScheme: 'dark' });
      await context.addCookies(await page.context().cookies());
      const dark = await context.newPage();
      dark.setDefaultTimeout(10_000);
      const darkErrors = collectPageErrors(dark);
      await dark.goto(url('/apis'));
      await settle(dark);
      expect(await dark.evaluate(() => document.documentElement.className)).toBe('dark');
      // The menu overrides it, for this browser, and goes back to following the system.
      await dark.getByRole('button', { name: 'Theme: System' }).click();
      await dark.getByRole('menuitemradio', { name: 'Light' }).click();
      expect(await dark.evaluate(() => document.documentElement.className)).toBe('light');
      await dark.getByRole('button', { name: 'Theme: Light' }).click();
      await dark.getByRole('menuitemradio', { name: 'Dark' }).click();
      expect(await dark.evaluate(() => document.documentElement.className)).toBe('dark');
      await dark.reload();
      await settle(dark);
      expect(await dark.evaluate(() => document.documentElement.className)).toBe('dark');

      // Each screen once, opened as a click in the app would (no reload), then checked and kept in
      // the dark theme and in the light one.
      const problems: Record<string, ContrastProblem[]> = {};
      const inFlight = trackRequests(dark);
      for (const [screen, title] of screens) {
        await dark.evaluate((path) => {
          window.history.pushState(null, '', path);
          window.dispatchEvent(new Event('keyplane:navigate'));
        }, `/dashboard${screen}`);
        await settleInApp(dark, inFlight);
        // Its own title, in the tab and the history.
        expect(await dark.title()).toBe(title);
        for (const theme of ['dark', 'light'] as const) {
          await dark.evaluate((name) => {
            document.documentElement.className = name;
            document.documentElement.style.colorScheme = name;
          }, theme);
          const found = await accessibilityProblems(dark, theme === 'light');
          if (found.length > 0) problems[`${theme} ${screen}`] = found;
          await keepScreenshot(
            dark,
            `review-${theme}-${title.replace(' · Keyplane', '').replace(/[^a-z0-9]+/gi, '-')}`,
          );
        }
        await dark.evaluate(() => {
          document.documentElement.className = 'dark';
          document.documentElement.style.colorScheme = 'dark';
        });
      }
      // A dialog, and the sign-in page.
      await dark.goto(url(`/apis/${payments().id}`));
      await dark.getByRole('button', { name: 'Create key' }).first().click();
      await dark.getByRole('dialog', { name: 'Create key' }).waitFor();
      const dialogProblems = await accessibilityProblems(dark);
      if (dialogProblems.length > 0) problems['dark create-key dialog'] = dialogProblems;
      await keepScreenshot(dark, 'review-dark-create-key');
      const signedOut = await browser.newContext({ viewport: DESKTOP, colorScheme: 'dark' });
      const signInPage = await signedOut.newPage();
      signInPage.setDefaultTimeout(10_000);
      await signInPage.goto(url('/'));
      await signInPage.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      await expect.poll(() => signInPage.title()).toBe('Sign in · Keyplane');
      const signInProblems = await accessibilityProblems(signInPage);
      if (signInProblems.length > 0) problems['dark sign-in'] = signInProblems;
      await keepScreenshot(signInPage, 'review-dark-sign-in');
      await signedOut.close();
      await context.close();
      expect(problems).toEqual({});
      expect(darkErrors.filter((error) => !EXPECTED_FAILURES.some((expected) => error.includes(expected)))).toEqual([]);
    }, 180_000);

    it('builds each screen as a chunk of its own, with hashed names, a manifest and compressed copies', () => {
      const dist = fileURLToPath(new URL('../dist/', import.meta.url));
      const assets = readdirSync(`${dist}assets`);
      const scripts = assets.filter((name) => /^[\w-]+-[\w-]{8}\.js$/.test(name));
      for (const screen of ['ApiDetail', 'KeyDetail', 'Usage', 'AuditLog', 'WorkspaceSettings', 'GettingStarted']) {
        expect(scripts.some((name) => name.startsWith(`${screen}-`))).toBe(true);
      }
      const manifest = JSON.parse(readFileSync(`${dist}.vite/manifest.json`, 'utf8')) as Record<
        string,
        { file: string }
      >;
      const entry = manifest['index.html']?.file ?? '';
      // The first page loads the shell; the charts' library waits for a screen with a chart.
      expect(statSync(`${dist}${entry}`).size).toBeLessThan(500_000);
      expect(readFileSync(`${dist}${entry}`, 'utf8')).not.toContain('recharts');
      for (const file of [entry, 'index.html']) {
        expect(statSync(`${dist}${file}.br`).size).toBeLessThan(statSync(`${dist}${file}`).size);
        expect(statSync(`${dist}${file}.gz`).size).toBeLessThan(statSync(`${dist}${file}`).size);
      }
    });

    it("shows the workspace's name and id, and deletes it only once its name is typed", async () => {
      await page.goto(url('/settings'));
      await expect.poll(() => page.getByTestId('workspace-name').textContent()).toBe('default');
      expect(await page.getByTestId('workspace-id').textContent()).toBe(review.workspaceId);
      await keepScreenshot(page, 'review-settings-1440');
      await page.getByRole('button', { name: 'Delete workspace' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete workspace' });
      const confirm = dialog.getByRole('button', { name: 'Delete workspace' });
      expect(await confirm.isDisabled()).toBe(true);
      await dialog.getByLabel('Type default to confirm').fill('defaul');
      expect(await confirm.isDisabled()).toBe(true);
      await dialog.getByLabel('Type default to confirm').fill('default');
      await confirm.click();
      // Signed out with it; its root keys refused.
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      expect(await dashboard.v2Status('apis.getApi', { apiId: payments().id })).toBe(401);
    });

    it('reported no script errors', () => {
      expect(unexpectedErrors(dashboard)).toEqual([]);
    });
  },
);
